// Embedding-bag pooling over a device CSR batch: tessera-core's `embedding_bag`, on the GPU,
// in one kernel launch per batch (no memset, no second kernel, no copy back: PyTorch's
// `embedding_bag` is one launch too, and at small batches each extra operation on the
// stream costs about as much as the pooling).
//
// One thread per (CSR row, embedding column), or per (CSR row, 4 columns) where the width is
// a multiple of 4 (the `_x4` kernels: 16-byte reads and writes, each column still its own
// sum). For each of its columns, a thread adds its row's table entries in key order,
// starting from +0.0f, with one correctly rounded f32 add per key (`__fadd_rn`, which the
// compiler may not contract into an FMA), then for Mean with n > 1 multiplies by
// `1.0f / (float)n` (`__fdiv_rn`, `__ull2float_rn`, `__fmul_rn`). That is exactly the
// operation sequence tessera-core's CPU reference documents, so results are bit-equal.
//
// Keys out of range: with `modulo` (and a non-empty table) they are reduced as the CPU does
// (`k % vocab`, Euclidean for negative i64 keys); otherwise the thread zeroes its output and
// the smallest flat key index at fault is kept in `state[0]` (atomicMin), so the host reports
// the same key the CPU's left-to-right pass stops at.
//
// The last block to finish (a counter in `state[1]`, after a fence) describes that key as
// (flat index, row, position, key) into `record`, page-locked host memory mapped into the
// device (the host set record[0] to ~0 before the launch and reads it after the launch's
// event), then resets `state` to (~0, 0) for the next launch: the host initialised it once.
//
// Compiled at run time with NVRTC (no host headers needed).

typedef unsigned long long u64;
typedef long long i64;

__device__ __forceinline__ bool resolve_key(unsigned int key, u64 vocab, int modulo, u64* index) {
    u64 k = (u64)key;
    if (modulo && vocab > 0) {
        *index = k % vocab;
        return true;
    }
    *index = k;
    return k < vocab;
}

__device__ __forceinline__ bool resolve_key(i64 key, u64 vocab, int modulo, u64* index) {
    if (modulo && vocab > 0) {
        if (key >= 0) {
            *index = (u64)key % vocab;
        } else {
            // rem_euclid: vocab fits i64 (a table is shorter than isize::MAX floats).
            i64 m = (i64)vocab;
            i64 r = key % m;
            if (r < 0) {
                r += m;
            }
            *index = (u64)r;
        }
        return true;
    }
    *index = (u64)key;
    return key >= 0 && (u64)key < vocab;
}

// V consecutive floats of a table or output row, read or written together (V = 4: one
// 16-byte access; the host picks V = 4 only where the width is a multiple of 4, so every
// such access is 16-byte aligned).
template <int V>
struct Lanes {
    float v[V];
};

template <int V>
__device__ __forceinline__ Lanes<V> load(const float* __restrict__ p);

template <>
__device__ __forceinline__ Lanes<1> load<1>(const float* __restrict__ p) {
    Lanes<1> l;
    l.v[0] = __ldg(p);
    return l;
}

template <>
__device__ __forceinline__ Lanes<4> load<4>(const float* __restrict__ p) {
    float4 f = __ldg(reinterpret_cast<const float4*>(p));
    Lanes<4> l;
    l.v[0] = f.x;
    l.v[1] = f.y;
    l.v[2] = f.z;
    l.v[3] = f.w;
    return l;
}

__device__ __forceinline__ void store(float* p, const Lanes<1>& l) {
    *p = l.v[0];
}

__device__ __forceinline__ void store(float* p, const Lanes<4>& l) {
    float4 f;
    f.x = l.v[0];
    f.y = l.v[1];
    f.z = l.v[2];
    f.w = l.v[3];
    *reinterpret_cast<float4*>(p) = f;
}

// The pooled values of (row, col .. col + V), or false at the first key out of range (its
// flat index goes to `*bad`). Each of the V columns is its own sum, in key order: the same
// operations as one column at a time.
template <typename K, int V>
__device__ __forceinline__ bool pool(const K* __restrict__ offsets, const K* __restrict__ keys,
                                     u64 row, u64 col, u64 nnz,
                                     const float* __restrict__ table, u64 vocab, u64 dim,
                                     int mean, int modulo, Lanes<V>* value, u64* bad) {
    // The host validated the CSR; the clamps only keep a bad batch inside its buffers.
    u64 begin = (u64)offsets[row];
    u64 end = (u64)offsets[row + 1];
    if (end > nnz) {
        end = nnz;
    }
    if (begin > end) {
        begin = end;
    }
    Lanes<V> acc;
#pragma unroll
    for (int c = 0; c < V; ++c) {
        acc.v[c] = 0.0f;
    }
    for (u64 i = begin; i < end; ++i) {
        u64 index;
        if (!resolve_key(keys[i], vocab, modulo, &index)) {
            *bad = i;
            return false;
        }
        Lanes<V> t = load<V>(&table[index * dim + col]);
#pragma unroll
        for (int c = 0; c < V; ++c) {
            acc.v[c] = __fadd_rn(acc.v[c], t.v[c]);
        }
    }
    u64 n = end - begin;
    if (mean && n > 1) {
        float r = __fdiv_rn(1.0f, __ull2float_rn(n));
#pragma unroll
        for (int c = 0; c < V; ++c) {
            acc.v[c] = __fmul_rn(acc.v[c], r);
        }
    }
    *value = acc;
    return true;
}

// Fills record[1..4] = (row, position, key) of flat key index `i`, then record[0] = i.
template <typename K>
__device__ void describe(const K* offsets, const K* keys, u64 rows, u64 i,
                         volatile u64* record) {
    // The last row whose first key is at or before i (empty rows before it share its offset).
    u64 lo = 0, hi = rows;
    while (hi - lo > 1) {
        u64 mid = lo + (hi - lo) / 2;
        if ((u64)offsets[mid] <= i) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    record[1] = lo;
    record[2] = i - (u64)offsets[lo];
    record[3] = (u64)(i64)keys[i];
    __threadfence_system();
    record[0] = i;
}

// One thread per (row, V columns): `blockIdx.y * blockDim.x + threadIdx.x` counts groups of
// V columns; the host launches `dim / V` of them per row.
template <typename K, int V>
__device__ __forceinline__ void bag(const K* __restrict__ offsets, const K* __restrict__ keys,
                                    u64 rows, u64 nnz, const float* __restrict__ table,
                                    u64 vocab, u64 dim, float* __restrict__ out, int mean,
                                    int modulo, u64* state, u64* record) {
    u64 row = (u64)blockIdx.x * blockDim.y + threadIdx.y;
    u64 col = ((u64)blockIdx.y * blockDim.x + threadIdx.x) * V;
    if (row < rows && col < dim) {
        Lanes<V> value;
#pragma unroll
        for (int c = 0; c < V; ++c) {
            value.v[c] = 0.0f;
        }
        u64 bad;
        if (!pool<K, V>(offsets, keys, row, col, nnz, table, vocab, dim, mean, modulo, &value,
                        &bad) &&
            col == 0) {
            atomicMin(&state[0], bad);
        }
        store(&out[row * dim + col], value);
    }
    // Every thread of the block is past its atomicMin: one of them counts the block.
    __syncthreads();
    if (threadIdx.x != 0 || threadIdx.y != 0) {
        return;
    }
    __threadfence();
    u64 blocks = (u64)gridDim.x * gridDim.y;
    if (atomicAdd(&state[1], 1ull) != blocks - 1) {
        return;
    }
    // The last block: every other block's atomicMin is visible after its fence.
    __threadfence();
    u64 i = atomicAdd(&state[0], 0ull);
    if (i != ~0ull) {
        describe(offsets, keys, rows, i, record);
    }
    state[0] = ~0ull;
    state[1] = 0;
}

// The kernels: key type, then floats per thread (none: one; `_x4`: four, for widths that
// are multiples of 4).
#define ENTRY(NAME, K, V)                                                                   \
    extern "C" __global__ void NAME(const K* offsets, const K* keys, u64 rows, u64 nnz,    \
                                    const float* table, u64 vocab, u64 dim, float* out,    \
                                    int mean, int modulo, u64* state, u64* record) {       \
        bag<K, V>(offsets, keys, rows, nnz, table, vocab, dim, out, mean, modulo, state,   \
                  record);                                                                 \
    }

ENTRY(embedding_bag_u32, unsigned int, 1)
ENTRY(embedding_bag_i64, i64, 1)
ENTRY(embedding_bag_u32_x4, unsigned int, 4)
ENTRY(embedding_bag_i64_x4, i64, 4)
