// Table-batched embedding-bag pooling (FBGEMM's TBE): many tables of different row counts,
// widths and row types in one device arena, one CSR batch in HugeCTR's layout (row
// `sample * slots + slot`), each slot reading its own table, pooled into one output row per
// sample with the slots side by side. One launch per batch. tessera-core's `TableSet::pool`
// is the reference, bit for bit.
//
// NVRTC compiles this appended to embedding_bag.cu (one program): `resolve_key` and
// `describe` come from there, so the two kernels cannot drift apart on key semantics or on
// how a bad key is reported.
//
// A group of lanes per CSR row (threadIdx.y picks the row within the block, the host sizes
// the group to the widest table): the keys and weights of a row are read by every lane of
// its group at the same address (one broadcast), the table rows lane by lane (consecutive
// addresses, four values a lane where the width allows), the values of several keys loaded
// before any is added. Each column is its own sum, in key order, from +0.0f:
//
//   v = the stored value as float (f32 as is; f16 and bf16 widened exactly;
//       int8 rowwise: __fadd_rn(__fmul_rn((float)q, scale), bias))
//   t = v, or __fmul_rn(w, v) with per-key weights
//   acc = __fadd_rn(acc, t)
//   Mean: acc = __fmul_rn(acc, __fdiv_rn(1.0f, __ull2float_rn(n))) if n > 1
//
// A table is described by TABLE_WORDS u64s: byte offset in the arena, rows, width, bytes
// per row, row type (0 f32, 1 f16, 2 bf16, 3 int8 rowwise: `width` u8 codes then f32 scale
// and f32 bias, FBGEMM's Fused8BitRowwiseQuantizedSBFloat). A slot by SLOT_WORDS u64s: its
// table, and its first column in a sample's output row. The host checked both (the slot
// tables exist, every table lies inside the arena), so the kernel trusts them.

#define TABLE_WORDS 5
#define SLOT_WORDS 2

__device__ __forceinline__ float tbe_f16_to_f32(unsigned int h) {
    unsigned int sign = (h & 0x8000u) << 16;
    unsigned int exponent = (h >> 10) & 0x1Fu;
    unsigned int mantissa = h & 0x3FFu;
    unsigned int bits;
    if (exponent == 0x1Fu) {
        bits = sign | 0x7F800000u | (mantissa << 13);
    } else if (exponent != 0) {
        bits = sign | ((exponent + 112u) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
        bits = sign;
    } else {
        unsigned int shift = __clz(mantissa) - 21;
        bits = sign | ((113u - shift) << 23) | (((mantissa << shift) & 0x3FFu) << 13);
    }
    return __int_as_float((int)bits);
}

// A little-endian f32 at any byte address (an int8 row's scale and bias are unaligned when
// its width is not a multiple of 4).
__device__ __forceinline__ float tbe_unaligned_f32(const unsigned char* p) {
    unsigned int bits = (unsigned int)__ldg(p) | ((unsigned int)__ldg(p + 1) << 8) |
                        ((unsigned int)__ldg(p + 2) << 16) | ((unsigned int)__ldg(p + 3) << 24);
    return __int_as_float((int)bits);
}

// Value j of a row: the host placed every table on a 32-byte boundary, and f32 / f16 / bf16
// rows are whole values long, so those reads are aligned.
__device__ __forceinline__ float tbe_value(const unsigned char* row, u64 j, u64 width, u64 type,
                                           float scale, float bias) {
    switch (type) {
    case 0:
        return __ldg(reinterpret_cast<const float*>(row) + j);
    case 1:
        return tbe_f16_to_f32(__ldg(reinterpret_cast<const unsigned short*>(row) + j));
    case 2:
        return __int_as_float(
            (int)((unsigned int)__ldg(reinterpret_cast<const unsigned short*>(row) + j) << 16));
    default:
        return __fadd_rn(__fmul_rn(__uint2float_rn(__ldg(row + j)), scale), bias);
    }
}

// What both kernels read of CSR row `row`: its slot's table, where its pooled values go,
// and its keys' range.
struct TbeRow {
    const unsigned char* base;
    u64 vocab, width, row_bytes, type;
    float* dst;
    u64 begin, end;
};

template <typename K>
__device__ __forceinline__ TbeRow tbe_row(const K* __restrict__ offsets, u64 row, u64 nnz,
                                          const unsigned char* __restrict__ arena,
                                          const u64* __restrict__ tables,
                                          const u64* __restrict__ slots, u64 slot_count,
                                          u64 sample_width, float* __restrict__ out) {
    TbeRow t;
    u64 slot = row % slot_count;
    u64 sample = row / slot_count;
    const u64* table = tables + slots[slot * SLOT_WORDS] * TABLE_WORDS;
    t.base = arena + table[0];
    t.vocab = table[1];
    t.width = table[2];
    t.row_bytes = table[3];
    t.type = table[4];
    t.dst = out + sample * sample_width + slots[slot * SLOT_WORDS + 1];
    // The host validated the CSR; the clamps only keep a bad batch inside its buffers.
    t.end = (u64)offsets[row + 1];
    if (t.end > nnz) {
        t.end = nnz;
    }
    t.begin = (u64)offsets[row];
    if (t.begin > t.end) {
        t.begin = t.end;
    }
    return t;
}

// As embedding_bag.cu: every thread is past its atomicMin, one thread counts the block, and
// the last block describes the smallest bad key index, then resets the state.
template <typename K>
__device__ __forceinline__ void tbe_finish(const K* __restrict__ offsets,
                                           const K* __restrict__ keys, u64 rows,
                                           const u64* __restrict__ tables,
                                           const u64* __restrict__ slots, u64 slot_count,
                                           u64* state, u64* record) {
    __syncthreads();
    if (threadIdx.x != 0 || threadIdx.y != 0) {
        return;
    }
    __threadfence();
    u64 blocks = (u64)gridDim.x * gridDim.y;
    if (atomicAdd(&state[1], 1ull) != blocks - 1) {
        return;
    }
    __threadfence();
    u64 i = atomicAdd(&state[0], 0ull);
    if (i != ~0ull) {
        // The table of the bad key's row, for the error's vocabulary: describe() fences
        // before it publishes record[0], so record[4] is visible first.
        u64 lo = 0, hi = rows;
        while (hi - lo > 1) {
            u64 mid = lo + (hi - lo) / 2;
            if ((u64)offsets[mid] <= i) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        volatile u64* v = record;
        v[4] = tables[slots[(lo % slot_count) * SLOT_WORDS] * TABLE_WORDS + 1];
        describe(offsets, keys, rows, i, record);
    }
    state[0] = ~0ull;
    state[1] = 0;
}


// The first kernel: a warp per CSR row, a column per lane, keys one at a time. Kept for
// the bench, which times it beside `tbe`.
template <typename K>
__device__ __forceinline__ void tbe_scalar(const K* __restrict__ offsets, const K* __restrict__ keys,
                                    u64 rows, u64 nnz, const float* __restrict__ weights,
                                    const unsigned char* __restrict__ arena,
                                    const u64* __restrict__ tables,
                                    const u64* __restrict__ slots, u64 slot_count,
                                    u64 sample_width, float* __restrict__ out, int mean,
                                    int modulo, u64* state, u64* record) {
    u64 row = (u64)blockIdx.x * blockDim.y + threadIdx.y;
    if (row < rows) {
        TbeRow t = tbe_row(offsets, row, nnz, arena, tables, slots, slot_count, sample_width, out);
        const unsigned char* base = t.base;
        u64 vocab = t.vocab, width = t.width, row_bytes = t.row_bytes, type = t.type;
        float* dst = t.dst;
        u64 begin = t.begin, end = t.end;
        u64 n = end - begin;
        float r = __fdiv_rn(1.0f, __ull2float_rn(n));
        for (u64 j = threadIdx.x; j < width; j += blockDim.x) {
            float acc = 0.0f;
            bool ok = true;
            for (u64 i = begin; i < end; ++i) {
                u64 index;
                if (!resolve_key(keys[i], vocab, modulo, &index)) {
                    if (j == 0) {
                        atomicMin(&state[0], i);
                    }
                    ok = false;
                    break;
                }
                const unsigned char* src = base + index * row_bytes;
                float scale = 0.0f, bias = 0.0f;
                if (type == 3) {
                    scale = tbe_unaligned_f32(src + width);
                    bias = tbe_unaligned_f32(src + width + 4);
                }
                float t = tbe_value(src, j, width, type, scale, bias);
                if (weights) {
                    t = __fmul_rn(__ldg(weights + i), t);
                }
                acc = __fadd_rn(acc, t);
            }
            if (!ok) {
                acc = 0.0f;
            } else if (mean && n > 1) {
                acc = __fmul_rn(acc, r);
            }
            dst[j] = acc;
        }
    }
    tbe_finish(offsets, keys, rows, tables, slots, slot_count, state, record);
}

// Four consecutive values of a row from column `j` (a multiple of 4, in a table whose width
// is a multiple of 4): one aligned load of 16 (f32), 8 (f16, bf16) or 4 (int8) bytes. Rows
// are then 16-, 8- and 4-byte aligned (tables start on 32-byte boundaries; an int8 row is
// `width + 8` bytes), so are an int8 row's scale and bias.
struct TbeQuad {
    float v[4];
};

__device__ __forceinline__ TbeQuad tbe_quad(const unsigned char* row, u64 j, u64 width,
                                            u64 type) {
    TbeQuad q;
    switch (type) {
    case 0: {
        float4 f = __ldg(reinterpret_cast<const float4*>(row) + j / 4);
        q.v[0] = f.x;
        q.v[1] = f.y;
        q.v[2] = f.z;
        q.v[3] = f.w;
        break;
    }
    case 1: {
        uint2 h = __ldg(reinterpret_cast<const uint2*>(row) + j / 4);
        q.v[0] = tbe_f16_to_f32(h.x & 0xFFFFu);
        q.v[1] = tbe_f16_to_f32(h.x >> 16);
        q.v[2] = tbe_f16_to_f32(h.y & 0xFFFFu);
        q.v[3] = tbe_f16_to_f32(h.y >> 16);
        break;
    }
    case 2: {
        uint2 h = __ldg(reinterpret_cast<const uint2*>(row) + j / 4);
        q.v[0] = __int_as_float((int)(h.x << 16));
        q.v[1] = __int_as_float((int)(h.x & 0xFFFF0000u));
        q.v[2] = __int_as_float((int)(h.y << 16));
        q.v[3] = __int_as_float((int)(h.y & 0xFFFF0000u));
        break;
    }
    default: {
        unsigned int b = __ldg(reinterpret_cast<const unsigned int*>(row) + j / 4);
        float scale = __ldg(reinterpret_cast<const float*>(row + width));
        float bias = __ldg(reinterpret_cast<const float*>(row + width + 4));
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            q.v[c] = __fadd_rn(__fmul_rn(__uint2float_rn((b >> (8 * c)) & 0xFFu), scale), bias);
        }
        break;
    }
    }
    return q;
}

// Keys a lane resolves and loads before it adds any of them: up to TBE_CHUNK rows' reads in
// flight per lane, which a table far beyond the L2 needs (rows come from DRAM).
#define TBE_CHUNK 4

// One group of `blockDim.x` lanes per CSR row (`threadIdx.y` picks the row within the
// block); a lane covers 4 consecutive columns (one aligned load per key) where its table's
// width is a multiple of 4, else one column, and strides by the group over wider rows. The
// host sizes the group to the widest table (a power of two up to 32), so narrow rows do not
// leave most of a warp idle. Each lane loads the values of up to TBE_CHUNK keys, then adds
// them in key order: each column is still its own sum in key order from +0.0f, the bits of
// `tbe_scalar` and of the CPU reference.
template <typename K>
__device__ __forceinline__ void tbe(const K* __restrict__ offsets, const K* __restrict__ keys,
                                    u64 rows, u64 nnz, const float* __restrict__ weights,
                                    const unsigned char* __restrict__ arena,
                                    const u64* __restrict__ tables,
                                    const u64* __restrict__ slots, u64 slot_count,
                                    u64 sample_width, float* __restrict__ out, int mean,
                                    int modulo, u64* state, u64* record) {
    u64 row = (u64)blockIdx.x * blockDim.y + threadIdx.y;
    if (row < rows) {
        TbeRow t = tbe_row(offsets, row, nnz, arena, tables, slots, slot_count, sample_width, out);
        const unsigned char* base = t.base;
        u64 vocab = t.vocab, width = t.width, row_bytes = t.row_bytes, type = t.type;
        float* dst = t.dst;
        u64 begin = t.begin, end = t.end;
        u64 n = end - begin;
        float r = __fdiv_rn(1.0f, __ull2float_rn(n));
        bool quad = (width & 3) == 0;
        u64 per_lane = quad ? 4 : 1;
        for (u64 j = threadIdx.x * per_lane; j < width; j += blockDim.x * per_lane) {
            float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            bool ok = true;
            for (u64 i = begin; i < end && ok; i += TBE_CHUNK) {
                u64 m = end - i < TBE_CHUNK ? end - i : TBE_CHUNK;
                const unsigned char* src[TBE_CHUNK];
#pragma unroll
                for (int c = 0; c < TBE_CHUNK; ++c) {
                    src[c] = base;
                    if ((u64)c < m && ok) {
                        u64 index;
                        if (resolve_key(keys[i + c], vocab, modulo, &index)) {
                            src[c] = base + index * row_bytes;
                        } else {
                            // The row's first bad key (earlier chunks were good).
                            if (j == 0) {
                                atomicMin(&state[0], i + c);
                            }
                            ok = false;
                        }
                    }
                }
                if (!ok) {
                    break;
                }
                TbeQuad v[TBE_CHUNK];
#pragma unroll
                for (int c = 0; c < TBE_CHUNK; ++c) {
                    if ((u64)c < m) {
                        if (quad) {
                            v[c] = tbe_quad(src[c], j, width, type);
                        } else {
                            float scale = 0.0f, bias = 0.0f;
                            if (type == 3) {
                                scale = tbe_unaligned_f32(src[c] + width);
                                bias = tbe_unaligned_f32(src[c] + width + 4);
                            }
                            v[c].v[0] = tbe_value(src[c], j, width, type, scale, bias);
                            v[c].v[1] = v[c].v[2] = v[c].v[3] = 0.0f;
                        }
                    }
                }
#pragma unroll
                for (int c = 0; c < TBE_CHUNK; ++c) {
                    if ((u64)c < m) {
                        float w = weights ? __ldg(weights + i + c) : 1.0f;
#pragma unroll
                        for (int e = 0; e < 4; ++e) {
                            float t = v[c].v[e];
                            if (weights) {
                                t = __fmul_rn(w, t);
                            }
                            acc[e] = __fadd_rn(acc[e], t);
                        }
                    }
                }
            }
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                if (!ok) {
                    acc[e] = 0.0f;
                } else if (mean && n > 1) {
                    acc[e] = __fmul_rn(acc[e], r);
                }
            }
            dst[j] = acc[0];
            if (quad) {
                dst[j + 1] = acc[1];
                dst[j + 2] = acc[2];
                dst[j + 3] = acc[3];
            }
        }
    }
    tbe_finish(offsets, keys, rows, tables, slots, slot_count, state, record);
}

#define TBE_ENTRY(NAME, K, BODY)                                                                \
    extern "C" __global__ void NAME(const K* offsets, const K* keys, u64 rows, u64 nnz,    \
                                    const float* weights, const unsigned char* arena,      \
                                    const u64* tables, const u64* slots, u64 slot_count,   \
                                    u64 sample_width, float* out, int mean, int modulo,    \
                                    u64* state, u64* record) {                             \
        BODY<K>(offsets, keys, rows, nnz, weights, arena, tables, slots, slot_count,       \
                sample_width, out, mean, modulo, state, record);                           \
    }

TBE_ENTRY(table_batched_u32, unsigned int, tbe)
TBE_ENTRY(table_batched_i64, i64, tbe)
TBE_ENTRY(table_batched_scalar_u32, unsigned int, tbe_scalar)
TBE_ENTRY(table_batched_scalar_i64, i64, tbe_scalar)
