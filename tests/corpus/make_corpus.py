#!/usr/bin/env python3
"""Builds tessera's real-model corpus: public `.tflite` models made by others (TensorFlow Lite
Micro's own, MediaPipe's, Coral's test models) and published architectures converted here
(Keras applications, an SSD-style detector with TFLite_Detection_PostProcess, torchvision
networks), each with seeded inputs, reference outputs from LiteRT (reference kernels and
XNNPACK) and TensorFlow Lite Micro, TFLM's smallest arena, latencies, and a manifest.
CI never runs this: it reads the committed subset in `small/`.

Usage (paths are examples; nothing here depends on this machine's layout):

    PY=<venv>/bin/python        # tensorflow-cpu, keras, ai-edge-litert, tflite-micro, numpy
    $PY tests/corpus/make_corpus.py all \\
        --tflm-git-dir <tflite-micro clone or its .git> --public-dir <folder of clones> \\
        [--torch-python <venv with torch, torchvision, litert-torch>/bin/python]
    $PY tests/corpus/make_corpus.py build tflm public keras ssd torch   # (re)make model files
    $PY tests/corpus/make_corpus.py refs  [NAME ...]    # inputs, LiteRT / TFLM outputs, arena
    $PY tests/corpus/make_corpus.py bench [NAME ...]    # latencies
    $PY tests/corpus/make_corpus.py small                # refresh the committed subset small/
    $PY tests/corpus/make_corpus.py report [--write-readme] [--kernels FILE]
    $PY tests/corpus/make_corpus.py record-sources --tflm-git-dir ... --public-dir ...
                                                          # rewrite sources.json (provenance)

Every model lives in `<out>/<name>/` (default `tests/corpus/models/`, git-ignored):
    model.tflite       the model
    source.json        where it came from (group, repository / converter settings)
    in{K}.npy          seeded input K (K = the subgraph's input order)
    ref_out{J}.npy     LiteRT 2.3 Interpreter, OpResolverType.BUILTIN_REF, num_threads=1
    xnn_out{J}.npy     the same with OpResolverType.AUTO (XNNPACK delegate), num_threads=1
    tflm_out{J}.npy    tflite_micro.runtime.Interpreter, where it runs
    manifest.json      name, source, bytes, sha256, operators with counts, tensor types,
                       inputs / outputs, which runtimes ran it (or their errors), tolerances,
                       TFLM's smallest arena, latencies

Public files are never committed: `build tflm` / `build public` read them from the clones
given with --tflm-git-dir / --public-dir (git directories, bare or not, or plain folders) at
the commit recorded in sources.json and check their sha256. A folder given to --public-dir
may hold, per repository OWNER/NAME, a clone at `OWNER+NAME/repo`, `OWNER+NAME`,
`OWNER/NAME` or `NAME`, or the bare files at `OWNER/NAME/<path>` or `<file name>`.

Determinism: Keras weights come from `keras.utils.set_random_seed(seed)` (seed = CRC-32 of the
model's name), torch weights from `torch.manual_seed(seed)`, inputs and calibration data from
`numpy.random.default_rng(seed)`. The converters write no date, so a rerun with the same
package versions reproduces every file.
"""

import argparse
import collections
import hashlib
import json
import math
import multiprocessing as mp
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zlib

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_USE_LEGACY_KERAS", "0")
os.environ.setdefault("LIBC_FATAL_STDERR_", "1")  # glibc's abort messages to stderr, not the tty

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = os.path.join(HERE, "sources.json")
README = os.path.join(HERE, "README.md")
DEFAULT_OUT = os.path.join(HERE, "models")
SMALL = os.path.join(HERE, "small")
SMALL_MAX_BYTES = 320 * 1024  # about 300 KB: a model we made is committed in small/ only below this
SMALL_TOTAL_MAX = 3 * 1024 * 1024
GROUPS = ["tflm", "public", "keras", "ssd", "torch"]
TFLM_UPPER = 256 << 20  # a model TFLM cannot run in 256 MiB of arena is refused

# ====================================================================== model choices

TFLM_REPO = "tensorflow/tflite-micro"
TFLM_DIR = "tensorflow/lite/micro/"
# (name, path in tflite-micro, description). Left out: the 4 MB
# third_party/xtensa/examples/pytorch_to_tflite/mobilenet_v2_quantized_1x3x224x224.tflite, the
# ~125 other integration_tests/seanet per-operator files, and python/tflite_micro/sine_float.tflite
# and tflite_size/tests/simple_add_model.tflite, the same bytes as hello_world_float.tflite and
# memory_footprint/models/simple_add_model.tflite.
TFLM_SELECTION = [
    ("tflm_hello_world_float", TFLM_DIR + "examples/hello_world/models/hello_world_float.tflite",
     "sine regression, 3 float FULLY_CONNECTED"),
    ("tflm_hello_world_int8", TFLM_DIR + "examples/hello_world/models/hello_world_int8.tflite",
     "the same, int8"),
    ("tflm_micro_speech_quantized", TFLM_DIR + "examples/micro_speech/models/micro_speech_quantized.tflite",
     "keyword spotting on a 49x40 spectrogram, int8"),
    ("tflm_audio_preprocessor_float", TFLM_DIR + "examples/micro_speech/models/audio_preprocessor_float.tflite",
     "micro_speech's feature generator: TFLM signal-library custom operators, int16 audio in"),
    ("tflm_audio_preprocessor_int8", TFLM_DIR + "examples/micro_speech/models/audio_preprocessor_int8.tflite",
     "the same with int8 features out"),
    ("tflm_mnist_lstm_float", TFLM_DIR + "examples/mnist_lstm/trained_lstm.tflite",
     "MNIST rows through a float UNIDIRECTIONAL_SEQUENCE_LSTM"),
    ("tflm_mnist_lstm_int8", TFLM_DIR + "examples/mnist_lstm/trained_lstm_int8.tflite",
     "the same, int8 (16-bit cell state)"),
    ("tflm_keyword_scrambled", TFLM_DIR + "models/keyword_scrambled.tflite",
     "keyword model with SVDF (int16 activations, weights scrambled)"),
    ("tflm_keyword_scrambled_8bit", TFLM_DIR + "models/keyword_scrambled_8bit.tflite",
     "the same with int8 SVDF state"),
    ("tflm_person_detect", TFLM_DIR + "models/person_detect.tflite",
     "visual wake words MobileNet v1 0.25, 96x96 grey, int8"),
    ("tflm_person_detect_vela", TFLM_DIR + "models/person_detect_vela.tflite",
     "person_detect compiled by Vela for Arm Ethos-U: one ethos-u custom operator (no CPU kernel)"),
    ("tflm_dtln_noise_suppression", TFLM_DIR + "examples/dtln/dtln_noise_suppression.tflite",
     "DTLN noise suppression, two int8 LSTMs"),
    ("tflm_micro_speech_lstm", "third_party/xtensa/examples/micro_speech_lstm/micro_speech_lstm.tflite",
     "micro_speech with an int8 LSTM (Xtensa example)"),
    ("tflm_simple_add_model", TFLM_DIR + "examples/memory_footprint/models/simple_add_model.tflite",
     "one int8 ADD of two 128x128 tensors"),
    ("tflm_seanet_conv10", TFLM_DIR + "integration_tests/seanet/conv/conv10.tflite",
     "SEANet layer sample: CONV_2D 16x8 (int16 activations, int64 bias)"),
    ("tflm_seanet_transpose_conv0", TFLM_DIR + "integration_tests/seanet/transpose_conv/transpose_conv0.tflite",
     "SEANet layer sample: TRANSPOSE_CONV 16x8, output shape given as input 0"),
    ("tflm_seanet_leaky_relu0", TFLM_DIR + "integration_tests/seanet/leaky_relu/leaky_relu0.tflite",
     "SEANet layer sample: int16 LEAKY_RELU"),
    ("tflm_seanet_strided_slice0", TFLM_DIR + "integration_tests/seanet/strided_slice/strided_slice0.tflite",
     "SEANet layer sample: int16 STRIDED_SLICE"),
]

MEDIAPIPE = "google-ai-edge/mediapipe"
CORAL = "google-coral/test_data"
# (name, repository, path, commit holding the file's last version or None for the mirror's
# HEAD, description). MediaPipe's models left git for a download step in 2023: the commits are
# the last ones that changed each file.
PUBLIC_SELECTION = [
    ("mp_face_detection_short_range", MEDIAPIPE, "mediapipe/modules/face_detection/face_detection_short_range.tflite",
     "139237092fedef164a17840aceb4e628244f8173", "BlazeFace short range 128x128, float16 weights"),
    ("mp_face_detection_full_range", MEDIAPIPE, "mediapipe/modules/face_detection/face_detection_full_range.tflite",
     "139237092fedef164a17840aceb4e628244f8173", "BlazeFace full range 192x192 (RESIZE_BILINEAR), float16 weights"),
    ("mp_face_detection_full_range_sparse", MEDIAPIPE,
     "mediapipe/modules/face_detection/face_detection_full_range_sparse.tflite",
     "139237092fedef164a17840aceb4e628244f8173", "the same with sparse float16 weights (DENSIFY) and DEPTH_TO_SPACE"),
    ("mp_face_landmark", MEDIAPIPE, "mediapipe/modules/face_landmark/face_landmark.tflite",
     "33d683c67100ef3db37d9752fcf65d30bea440c4", "face mesh, 468 landmarks, PRELU, float16 weights"),
    ("mp_face_landmark_with_attention", MEDIAPIPE, "mediapipe/modules/face_landmark/face_landmark_with_attention.tflite",
     "33d683c67100ef3db37d9752fcf65d30bea440c4", "face mesh with attention: MediaPipe custom operators"),
    ("mp_hand_landmark_lite", MEDIAPIPE, "mediapipe/modules/hand_landmark/hand_landmark_lite.tflite",
     "1faeaae7e504657f44544989f9547fc69652e487", "hand landmarks (lite), float16 weights"),
    ("mp_palm_detection_lite", MEDIAPIPE, "mediapipe/modules/palm_detection/palm_detection_lite.tflite",
     "d4bb35fe5a44b3419ca86e4c7ecbc931dded2122", "palm detector (lite), PRELU, float16 weights"),
    ("mp_palm_detection_full", MEDIAPIPE, "mediapipe/modules/palm_detection/palm_detection_full.tflite",
     "d4bb35fe5a44b3419ca86e4c7ecbc931dded2122", "palm detector (full), float16 weights"),
    ("mp_pose_detection", MEDIAPIPE, "mediapipe/modules/pose_detection/pose_detection.tflite",
     "d4bb35fe5a44b3419ca86e4c7ecbc931dded2122", "BlazePose detector: sparse float16 weights (DENSIFY), DEPTH_TO_SPACE"),
    ("mp_pose_landmark_lite", MEDIAPIPE, "mediapipe/modules/pose_landmark/pose_landmark_lite.tflite",
     "710fb3de58dc10b7bc75f9cb758300c9016a5e4f", "BlazePose landmarks (lite), 5 outputs incl. segmentation"),
    ("mp_selfie_segmentation", MEDIAPIPE, "mediapipe/modules/selfie_segmentation/selfie_segmentation.tflite",
     "8b57bf879b419173b26277d220b643dac0402334", "selfie segmentation: HARD_SWISH, custom Convolution2DTransposeBias"),
    ("mp_hair_segmentation", MEDIAPIPE, "mediapipe/models/hair_segmentation.tflite",
     "d68f5e416903e3d756ebe07d08c4a3b911741a91",
     "hair segmentation 512x512x4: custom MaxPoolingWithArgmax2D / MaxUnpooling2D / Convolution2DTransposeBias"),
    ("mp_iris_landmark", MEDIAPIPE, "mediapipe/modules/iris_landmark/iris_landmark.tflite",
     "2f86a459b6f255018536a6d7b708e352bbc65d0c", "iris landmarks, float32, PRELU"),
    ("mp_knift_float", MEDIAPIPE, "mediapipe/models/knift_float.tflite",
     "7bad8fce626ab3b0f41d818afac4df1e757c0969", "KNIFT local features: batch 200 of 32x32 patches, L2_NORMALIZATION"),
    ("mp_hand_recrop", MEDIAPIPE, "mediapipe/modules/holistic_landmark/hand_recrop.tflite",
     "2b58cceec9953f0d97059934f0de85dd60adbe9b", "holistic hand re-crop regressor, float32"),
    ("coral_mobilenet_v1_0.25_128_quant", CORAL, "mobilenet_v1_0.25_128_quant.tflite", None,
     "MobileNet v1 0.25 128x128, uint8 (TF1 quantization-aware training)"),
    ("coral_mobilenet_v2_1.0_224_quant", CORAL, "mobilenet_v2_1.0_224_quant.tflite", None,
     "MobileNet v2 1.0 224x224, uint8"),
    ("coral_tf2_mobilenet_v2_1.0_224_ptq", CORAL, "tf2_mobilenet_v2_1.0_224_ptq.tflite", None,
     "MobileNet v2 1.0 224x224, TF2 post-training int8 with uint8 input / output"),
    ("coral_deeplabv3_mnv2_dm05_pascal_quant", CORAL, "deeplabv3_mnv2_dm05_pascal_quant.tflite", None,
     "DeepLab v3 MobileNet v2 0.5 513x513, uint8, RESIZE_BILINEAR, int64 ARG_MAX"),
    ("coral_movenet_single_pose_lightning_ptq", CORAL, "movenet_single_pose_lightning_ptq.tflite", None,
     "MoveNet lightning 192x192, int8 with a float post-processing tail (GATHER_ND, FLOOR_DIV, SQRT)"),
    ("coral_keras_lstm_mnist_ptq", CORAL, "keras_lstm_mnist_ptq.tflite", None,
     "Keras LSTM on MNIST rows, int8 UNIDIRECTIONAL_SEQUENCE_LSTM, uint8 input / output"),
    ("coral_traffic_model", CORAL, "automl_video_ondevice/traffic_model.tflite", None,
     "AutoML video object tracker: uint8 SSD with LSTM state inputs, TFLite_Detection_PostProcess"),
    ("coral_posenet_mobilenet_v1_075_353_481_quant_decoder", CORAL,
     "posenet/posenet_mobilenet_v1_075_353_481_16_quant_decoder.tflite", None,
     "PoseNet with Coral's PosenetDecoderOp custom operator (no LiteRT kernel)"),
]

# Input ranges ([lo, hi]: uniform floats, or integers lo..hi inclusive) or fixed values, per
# model and input; anything not listed gets the default for its type: floats in [-1, 1],
# integers over their whole range (int32: 0..9), bools at random.
INPUT_SPECS = {
    "tflm_hello_world_float": [{"range": [0.0, 2 * math.pi]}],
    "tflm_audio_preprocessor_float": [{"range": [-8192, 8192]}],
    "tflm_audio_preprocessor_int8": [{"range": [-8192, 8192]}],
    "tflm_seanet_transpose_conv0": [{"value": [1, 3, 12, 64]}, {}],
    "tflm_mnist_lstm_float": [{"range": [0.0, 1.0]}],
    "mp_face_landmark": [{"range": [0.0, 1.0]}],
    "mp_face_landmark_with_attention": [{"range": [0.0, 1.0]}],
    "mp_hand_landmark_lite": [{"range": [0.0, 1.0]}],
    "mp_pose_landmark_lite": [{"range": [0.0, 1.0]}],
    "mp_selfie_segmentation": [{"range": [0.0, 1.0]}],
    "mp_hair_segmentation": [{"range": [0.0, 1.0]}],
    "mp_iris_landmark": [{"range": [0.0, 1.0]}],
    "mp_hand_recrop": [{"range": [0.0, 1.0]}],
}

# Keras applications, weights=None: (name, constructor, keyword arguments, input side, the
# float input range the architecture's preprocessing produces).
KERAS_SELECTION = [
    ("mobilenet_v1_a025_128", "MobileNet", {"alpha": 0.25}, 128, (-1.0, 1.0)),
    ("mobilenet_v1_a100_224", "MobileNet", {"alpha": 1.0}, 224, (-1.0, 1.0)),
    ("mobilenet_v1_a025_96_notop", "MobileNet", {"alpha": 0.25, "include_top": False, "pooling": "avg"}, 96,
     (-1.0, 1.0)),
    ("mobilenet_v2_a035_96", "MobileNetV2", {"alpha": 0.35}, 96, (-1.0, 1.0)),
    ("mobilenet_v2_a100_224", "MobileNetV2", {"alpha": 1.0}, 224, (-1.0, 1.0)),
    ("mobilenet_v3_small_128", "MobileNetV3Small", {}, 128, (0.0, 255.0)),
    ("mobilenet_v3_large_128", "MobileNetV3Large", {}, 128, (0.0, 255.0)),
    ("efficientnet_b0_128", "EfficientNetB0", {}, 128, (0.0, 255.0)),
    ("nasnet_mobile_96", "NASNetMobile", {}, 96, (-1.0, 1.0)),
    ("resnet50_128", "ResNet50", {}, 128, (-123.68, 151.061)),
]
KERAS_FORMS = ["f32", "f16", "int8"]
CALIBRATION_SAMPLES = 8

# SSD-style detectors: a small Keras conv net with box encodings and class scores, converted by
# TensorFlow, then a TFLite_Detection_PostProcess custom operator appended to the flatbuffer.
SSD_SELECTION = [
    # (name, quantize to int8, use_regular_nms)
    ("ssd_tiny_regular_nms_f32", False, True),
    ("ssd_tiny_fast_nms_f32", False, False),
    ("ssd_tiny_fast_nms_int8", True, False),
]
SSD_INPUT, SSD_CLASSES, SSD_MAX_DETECTIONS = 96, 5, 10

TORCH_SELECTION = [
    # (name, torchvision constructor, input side)
    ("torch_mobilenet_v3_small_224", "mobilenet_v3_small", 224),
    ("torch_resnet18_224", "resnet18", 224),
]


def wanted(names, only):
    """True if no --only was given or one of `names` starts with one of its prefixes."""
    return not only or any(n.startswith(o) for n in names for o in only)


def seed_of(name):
    return zlib.crc32(name.encode()) & 0x7FFFFFFF


# ====================================================================== small helpers


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def to_json(obj, indent=0):
    """JSON with one item per line, but lists of numbers / strings on one line."""
    pad, inner = " " * indent, " " * (indent + 1)
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        items = [f"{inner}{json.dumps(str(k))}: {to_json(v, indent + 1)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, (list, tuple)):
        if all(not isinstance(v, (dict, list, tuple)) for v in obj):
            return "[" + ", ".join(json.dumps(v) for v in obj) + "]"
        return "[\n" + ",\n".join(inner + to_json(v, indent + 1) for v in obj) + "\n" + pad + "]"
    if isinstance(obj, (np.integer,)):
        return str(int(obj))
    if isinstance(obj, (np.floating,)):
        return json.dumps(float(obj))
    return json.dumps(obj)


def write_json(path, obj):
    with open(path, "w") as f:
        f.write(to_json(obj) + "\n")


def read_json(path, default=None):
    if not os.path.exists(path):
        return default
    with open(path) as f:
        return json.load(f)


def log(*a):
    print(*a, flush=True)


def model_dirs(out, names=None):
    if not os.path.isdir(out):
        return []
    all_names = sorted(d for d in os.listdir(out) if os.path.exists(os.path.join(out, d, "model.tflite")))
    if not names:
        return all_names
    picked = []
    for n in names:
        hits = [a for a in all_names if a == n] or [a for a in all_names if a.startswith(n)]
        if not hits:
            raise SystemExit(f"no model {n!r} in {out}")
        picked += [h for h in hits if h not in picked]
    return picked


def put_model(out, name, data, source):
    d = os.path.join(out, name)
    if os.path.isdir(d):
        shutil.rmtree(d)  # stale references must not outlive the model they were made for
    os.makedirs(d)
    with open(os.path.join(d, "model.tflite"), "wb") as f:
        f.write(data)
    write_json(os.path.join(d, "source.json"), source)
    log(f"  {name}: {len(data)} bytes")


# ====================================================================== public sources


def _is_git_dir(p):
    return os.path.isfile(os.path.join(p, "HEAD")) and os.path.isdir(os.path.join(p, "objects"))


def _git(cand, *args):
    base = ["git", "--git-dir", cand] if _is_git_dir(cand) else ["git", "-C", cand]
    r = subprocess.run(base + list(args), capture_output=True)
    return r.stdout if r.returncode == 0 else None


def _git_candidates(root, repo):
    owner, name = repo.split("/")
    cands = [root, os.path.join(root, f"{owner}+{name}", "repo"), os.path.join(root, f"{owner}+{name}"),
             os.path.join(root, owner, name), os.path.join(root, name)]
    return [c for c in cands if os.path.isdir(c) and (_is_git_dir(c) or os.path.exists(os.path.join(c, ".git")))]


def locate_repo(root, repo, probe_path, commit):
    """The first git directory under `root` holding `commit:probe_path` (or HEAD's)."""
    for c in _git_candidates(root, repo):
        if _git(c, "cat-file", "-e", f"{commit or 'HEAD'}:{probe_path}") is not None:
            return c
    return None


def read_source(root, entry):
    """The bytes of a sources.json entry from `root`, checked against its sha256."""
    repo, path, commit = entry["repository"], entry["path"], entry["commit"]
    tried = []
    for c in _git_candidates(root, repo):
        for rev in (commit, "HEAD"):
            data = _git(c, "show", f"{rev}:{path}")
            if data is not None and sha256(data) == entry["sha256"]:
                return data
            tried.append(f"{c} {rev}")
    owner, name = repo.split("/")
    for p in (os.path.join(root, owner, name, path), os.path.join(root, path),
              os.path.join(root, os.path.basename(path))):
        if os.path.isfile(p):
            with open(p, "rb") as f:
                data = f.read()
            if sha256(data) == entry["sha256"]:
                return data
            tried.append(f"{p} (sha256 differs)")
    raise SystemExit(f"{entry['name']}: {repo}:{path} at {commit} with sha256 {entry['sha256']} not found under "
                     f"{root} (tried: {'; '.join(tried) or 'no clone of ' + repo})")


def repo_license(gitdir, rev):
    for f in ("LICENSE", "LICENSE.txt", "LICENSE.md", "COPYING"):
        text = _git(gitdir, "show", f"{rev}:{f}")
        if text:
            t = text.decode(errors="replace")
            if "Apache License" in t and "Version 2.0" in t:
                return "Apache-2.0", f
            if "MIT License" in t or "Permission is hereby granted, free of charge" in t:
                return "MIT", f
            return "see " + f, f
    return "none stated", None


def cmd_record_sources(args):
    """Writes sources.json from the selections above and the clones given."""
    entries, repos = [], {}
    plan = [(n, TFLM_REPO, p, None, d, "tflm", args.tflm_git_dir) for n, p, d in TFLM_SELECTION]
    plan += [(n, r, p, c, d, "public", args.public_dir) for n, r, p, c, d in PUBLIC_SELECTION]
    for name, repo, path, commit, desc, group, root in plan:
        if root is None:
            raise SystemExit(f"{name}: give --{'tflm-git-dir' if group == 'tflm' else 'public-dir'}")
        g = locate_repo(root, repo, path, commit)
        if g is None:
            raise SystemExit(f"{name}: no clone of {repo} holding {path} under {root}")
        head = _git(g, "rev-parse", "HEAD").decode().strip()
        rev = commit or head
        data = _git(g, "show", f"{rev}:{path}")
        if repo not in repos:
            lic, lic_file = repo_license(g, head)
            repos[repo] = {"mirror_head": head, "license": lic, "license_file": lic_file}
        entries.append({
            "name": name, "group": group, "repository": repo, "path": path,
            "commit": _git(g, "rev-parse", rev).decode().strip(), "mirror_head": head,
            "sha256": sha256(data), "bytes": len(data), "license": repos[repo]["license"],
            "description": desc,
        })
        log(f"  {name}: {len(data)} bytes")
    write_json(SOURCES, {
        "note": "Provenance of the public models in the corpus. The files are not committed: "
                "make_corpus.py build tflm/public copies them from clones of these repositories "
                "and checks the sha256. 'commit' is the commit the file is read at (the last one that "
                "changed it where the repository later removed it), 'mirror_head' the repository's "
                "HEAD when this was recorded.",
        "repositories": repos, "models": entries})
    log(f"wrote {SOURCES}: {len(entries)} models")


def build_from_sources(out, group, root):
    src = read_json(SOURCES)
    if src is None:
        raise SystemExit("no sources.json: run record-sources first")
    if root is None:
        raise SystemExit(f"build {group}: give --{'tflm-git-dir' if group == 'tflm' else 'public-dir'}")
    for e in src["models"]:
        if e["group"] != group:
            continue
        data = read_source(root, e)
        put_model(out, e["name"], data, {
            "group": group, "origin": "public",
            "repository": e["repository"], "path": e["path"], "commit": e["commit"],
            "license": e["license"], "description": e["description"]})


# ====================================================================== Keras applications


def _tf():
    import tensorflow as tf

    return tf


def export_and_convert(model, input_shape, form, calib=None, int8_output=True):
    """Keras 3 model -> SavedModel with a batch-1 signature -> TFLiteConverter, as users do."""
    tf = _tf()
    with tempfile.TemporaryDirectory() as tmp:
        sig = [tf.TensorSpec(input_shape, tf.float32, name="input")]
        model.export(tmp, format="tf_saved_model", input_signature=sig, verbose=False)
        conv = tf.lite.TFLiteConverter.from_saved_model(tmp)
        conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
        if form == "f16":
            conv.optimizations = [tf.lite.Optimize.DEFAULT]
            conv.target_spec.supported_types = [tf.float16]
        elif form == "int8":
            conv.optimizations = [tf.lite.Optimize.DEFAULT]
            conv.representative_dataset = lambda: ([x] for x in calib)
            conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8, tf.lite.OpsSet.TFLITE_BUILTINS]
            conv.inference_input_type = tf.int8
            if int8_output:
                conv.inference_output_type = tf.int8
        return bytes(conv.convert())


def calibration(name, shape, lo, hi):
    rng = np.random.default_rng(seed_of(name + "/calibration"))
    return [rng.uniform(lo, hi, shape).astype(np.float32) for _ in range(CALIBRATION_SAMPLES)]


def build_keras(out, only=None):
    import keras

    tf = _tf()
    for arch, ctor, kw, side, (lo, hi) in KERAS_SELECTION:
        names = {f: f"keras_{arch}_{f}" for f in KERAS_FORMS}
        if not wanted(names.values(), only):
            continue
        t0 = time.time()
        keras.backend.clear_session()  # layer names independent of what ran before
        keras.utils.set_random_seed(seed_of(arch))
        model = getattr(keras.applications, ctor)(input_shape=(side, side, 3), weights=None, **kw)
        shape = [1, side, side, 3]
        stats = trained_like(keras, model, arch, side, lo, hi)
        for form in KERAS_FORMS:
            name = names[form]
            calib = calibration(name, shape, lo, hi) if form == "int8" else None
            data = export_and_convert(model, shape, form, calib)
            put_model(out, name, data, {
                "group": "keras", "origin": "converted",
                "architecture": f"keras.applications.{ctor}(input_shape=({side}, {side}, 3), weights=None"
                                + "".join(f", {k}={v!r}" for k, v in kw.items()) + ")",
                "seed": f"keras.utils.set_random_seed({seed_of(arch)}) (CRC-32 of {arch!r})",
                "conversion": {
                    "f32": "model.export(tf_saved_model, batch-1 signature) -> TFLiteConverter.from_saved_model, "
                           "TFLITE_BUILTINS",
                    "f16": "the same with optimizations=[Optimize.DEFAULT], supported_types=[tf.float16]",
                    "int8": f"optimizations=[Optimize.DEFAULT], representative_dataset = {CALIBRATION_SAMPLES} "
                            f"seeded uniform images in [{lo}, {hi}], TFLITE_BUILTINS_INT8 (+TFLITE_BUILTINS), "
                            "int8 input and output",
                }[form],
                "input_range": [lo, hi],
                "statistics": stats,
                "versions": versions(tf, keras),
            })
        log(f"  {arch}: {time.time() - t0:.0f} s")


BN_SAMPLES, LOGIT_STD = 8, 3.0


def trained_like(keras, model, arch, side, lo, hi):
    """Gives a weights=None network the activation statistics of a trained one, deterministically.

    Keras' initialisation with BatchNormalization's identity statistics (mean 0, variance 1)
    makes activations shrink layer after layer: the logits of a fresh MobileNet differ by 1e-16
    from class to class and from image to image, so its outputs test nothing past the first
    layers, and an int8 conversion aborts LiteRT's reference SOFTMAX (input scale under 2^-26).
    So: (1) every BatchNormalization takes the mean and variance of its input over
    BN_SAMPLES seeded images (one training-mode pass with momentum 0, what training converges
    to), and (2) where the network ends in a classifier, its last Dense / Conv2D is scaled so the
    logits' standard deviation over classes is LOGIT_STD, as for a confident trained classifier
    (otherwise every int8 softmax output is the same). Returns what was done, for source.json."""
    rng = np.random.default_rng(seed_of(arch + "/batchnorm"))
    x = rng.uniform(lo, hi, (BN_SAMPLES, side, side, 3)).astype(np.float32)
    bns = [layer for layer in model.layers if isinstance(layer, keras.layers.BatchNormalization)]
    saved = [layer.momentum for layer in bns]
    for layer in bns:
        layer.momentum = 0.0
    model(x, training=True)
    for layer, m in zip(bns, saved):
        layer.momentum = m
    done = {"batchnorm": f"moving mean / variance of {len(bns)} BatchNormalization layers set to the batch "
                         f"statistics of {BN_SAMPLES} seeded images in [{lo}, {hi}] "
                         f"(numpy default_rng({seed_of(arch + '/batchnorm')}))"}
    last = [layer for layer in model.layers if isinstance(layer, (keras.layers.Dense, keras.layers.Conv2D))][-1]
    if getattr(model.layers[-1], "activation", None) is keras.activations.softmax or \
            "predictions" in model.layers[-1].name:
        logits = np.asarray(keras.Model(model.input, last.output)(x)).reshape(BN_SAMPLES, -1)
        if last.activation is keras.activations.softmax:  # Dense(classes, activation="softmax")
            logits = np.asarray(keras.Model(model.input, last.input)(x)).reshape(BN_SAMPLES, -1) @ \
                np.asarray(last.kernel).reshape(-1, logits.shape[1]) + np.asarray(last.bias)
        scale = LOGIT_STD / float(np.mean(np.std(logits, axis=1)))
        last.kernel.assign(np.asarray(last.kernel) * scale)
        if last.bias is not None:
            last.bias.assign(np.asarray(last.bias) * scale)
        done["classifier"] = f"{last.name}'s kernel and bias scaled by {scale:.4g}: logits' standard deviation " \
                             f"over classes {LOGIT_STD} on those images"
    return done


def versions(tf=None, keras=None):
    v = {"numpy": np.__version__}
    if tf is not None:
        v["tensorflow"] = tf.__version__
    if keras is not None:
        v["keras"] = keras.__version__
    return v


# ====================================================================== SSD with post-processing


def ssd_anchors(grids, per_cell):
    """[N, 4] anchors (y_center, x_center, h, w), in the order the heads emit boxes."""
    rows = []
    for g, sizes in zip(grids, per_cell):
        for i in range(g):
            for j in range(g):
                for s, aspect in sizes:
                    rows.append([(i + 0.5) / g, (j + 0.5) / g, s / math.sqrt(aspect), s * math.sqrt(aspect)])
    return np.array(rows, np.float32)


SSD_GRIDS = [12, 6]
SSD_ANCHOR_SHAPES = [[(0.15, 1.0), (0.2, 2.0), (0.2, 0.5)], [(0.4, 1.0), (0.5, 2.0), (0.5, 0.5)]]


def ssd_keras_model(name):
    import keras
    from keras import layers

    keras.backend.clear_session()
    keras.utils.set_random_seed(seed_of(name))
    per = len(SSD_ANCHOR_SHAPES[0])
    inp = keras.Input((SSD_INPUT, SSD_INPUT, 3), batch_size=1, name="image")
    x = inp
    # He-style initialisation per 3x3 window (Keras counts a depthwise kernel's fan-in over all
    # channels, which shrinks activations to nothing after a few layers).
    dw_init = keras.initializers.RandomNormal(stddev=math.sqrt(2.0 / 9.0))
    for i, ch in enumerate([16, 32, 32]):  # 96 -> 48 -> 24 -> 12
        x = layers.Conv2D(ch, 3, strides=2, padding="same", kernel_initializer="he_normal", name=f"conv{i}")(x)
        x = layers.BatchNormalization(name=f"bn{i}")(x)
        x = layers.ReLU(6.0, name=f"relu{i}")(x)
        x = layers.DepthwiseConv2D(3, padding="same", depthwise_initializer=dw_init, name=f"dw{i}")(x)
        x = layers.ReLU(6.0, name=f"dwrelu{i}")(x)
    f1 = x  # 12x12
    f2 = layers.Conv2D(64, 3, strides=2, padding="same", activation="relu", kernel_initializer="he_normal",
                       name="conv3")(f1)  # 6x6
    boxes, scores = [], []
    for k, f in enumerate([f1, f2]):
        g = SSD_GRIDS[k]
        # Heads with spread-out weights and biases: Keras' default initialisation leaves every
        # logit near 0 and every score at 0.5, and NMS on ties tests nothing.
        init = keras.initializers.RandomNormal(stddev=0.1)
        b = layers.Conv2D(per * 4, 3, padding="same", kernel_initializer=init,
                          bias_initializer=keras.initializers.RandomNormal(stddev=0.5), name=f"box{k}")(f)
        s = layers.Conv2D(per * (SSD_CLASSES + 1), 3, padding="same", kernel_initializer=init,
                          bias_initializer=keras.initializers.RandomNormal(mean=-1.0, stddev=0.5), name=f"cls{k}")(f)
        boxes.append(layers.Reshape((g * g * per, 4), name=f"box_reshape{k}")(b))
        scores.append(layers.Reshape((g * g * per, SSD_CLASSES + 1), name=f"cls_reshape{k}")(s))
    box = layers.Concatenate(axis=1, name="box_encodings")(boxes)
    cls = layers.Activation("sigmoid", name="class_scores")(layers.Concatenate(axis=1, name="cls_concat")(scores))
    return keras.Model(inp, [box, cls], name=name)


def flexbuffer_options(opts):
    from flatbuffers import flexbuffers

    return bytes(flexbuffers.Dumps(opts))


def append_detection_postprocess(data, anchors, options):
    """Appends TFLite_Detection_PostProcess(box encodings, class scores, anchors) to subgraph 0
    and makes its four outputs the model's outputs."""
    from tensorflow.lite.python import schema_py_generated as schema
    import flatbuffers

    m = schema.ModelT.InitFromPackedBuf(data, 0)
    sg = m.subgraphs[0]
    box_t = cls_t = None
    for t in sg.outputs:
        last = int(sg.tensors[t].shape[-1])
        if last == 4:
            box_t = t
        elif last == SSD_CLASSES + 1:
            cls_t = t
    assert box_t is not None and cls_t is not None, "box / score outputs not found"

    def add_tensor(name, shape, ttype, payload=None):
        buf = schema.BufferT()
        if payload is not None:
            buf.data = np.frombuffer(payload, np.uint8)
        m.buffers.append(buf)
        t = schema.TensorT()
        t.name, t.shape, t.type, t.buffer = name.encode(), np.array(shape, np.int32), ttype, len(m.buffers) - 1
        sg.tensors.append(t)
        return len(sg.tensors) - 1

    anchors_t = add_tensor("anchors", list(anchors.shape), schema.TensorType.FLOAT32, anchors.tobytes())
    md = options["max_detections"]
    outs = [
        add_tensor("detection_boxes", [1, md, 4], schema.TensorType.FLOAT32),
        add_tensor("detection_classes", [1, md], schema.TensorType.FLOAT32),
        add_tensor("detection_scores", [1, md], schema.TensorType.FLOAT32),
        add_tensor("num_detections", [1], schema.TensorType.FLOAT32),
    ]
    code = schema.OperatorCodeT()
    code.builtinCode = schema.BuiltinOperator.CUSTOM
    code.deprecatedBuiltinCode = schema.BuiltinOperator.CUSTOM
    code.customCode = b"TFLite_Detection_PostProcess"
    code.version = 1
    m.operatorCodes.append(code)
    op = schema.OperatorT()
    op.opcodeIndex = len(m.operatorCodes) - 1
    op.inputs = np.array([box_t, cls_t, anchors_t], np.int32)
    op.outputs = np.array(outs, np.int32)
    op.customOptions = np.frombuffer(flexbuffer_options(options), np.uint8)
    op.customOptionsFormat = schema.CustomOptionsFormat.FLEXBUFFERS
    sg.operators.append(op)
    sg.outputs = np.array(outs, np.int32)
    for sd in m.signatureDefs or []:
        maps = []
        for t, n in zip(outs, ["detection_boxes", "detection_classes", "detection_scores", "num_detections"]):
            tm = schema.TensorMapT()
            tm.name, tm.tensorIndex = n.encode(), t
            maps.append(tm)
        sd.outputs = maps
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def build_ssd(out, only=None):
    import keras

    tf = _tf()
    anchors = ssd_anchors(SSD_GRIDS, SSD_ANCHOR_SHAPES)
    for name, quant, regular in SSD_SELECTION:
        if not wanted([name], only):
            continue
        model = ssd_keras_model("ssd_tiny")  # one network for all variants
        shape = [1, SSD_INPUT, SSD_INPUT, 3]
        form = "int8" if quant else "f32"
        calib = calibration(name, shape, -1.0, 1.0) if quant else None
        # LiteRT's TFLite_Detection_PostProcess reads float or uint8 boxes and scores, not int8:
        # the int8 network ends in DEQUANTIZE (float outputs), as TF2 detection exports do.
        data = export_and_convert(model, shape, form, calib, int8_output=False)
        options = {
            "max_detections": SSD_MAX_DETECTIONS,
            "max_classes_per_detection": 1,
            "detections_per_class": 100,
            "use_regular_nms": regular,
            "nms_score_threshold": 0.45,
            "nms_iou_threshold": 0.5,
            "num_classes": SSD_CLASSES,
            "y_scale": 10.0,
            "x_scale": 10.0,
            "h_scale": 5.0,
            "w_scale": 5.0,
        }
        data = append_detection_postprocess(data, anchors, options)
        put_model(out, name, data, {
            "group": "ssd", "origin": "converted",
            "architecture": f"small Keras SSD: 96x96x3 -> conv/depthwise backbone -> box and class heads on 12x12 and "
                            f"6x6 grids, 3 anchors per cell ({len(anchors)} anchors), {SSD_CLASSES} classes + "
                            "background, sigmoid scores",
            "seed": f"keras.utils.set_random_seed({seed_of('ssd_tiny')}) (CRC-32 of 'ssd_tiny')",
            "conversion": ("int8 (int8 input, float box / score outputs through DEQUANTIZE, representative "
                           "dataset of 8 seeded images in [-1, 1]), "
                           if quant else "float32, ")
                          + "then TFLite_Detection_PostProcess appended with schema_py_generated's object API "
                            "(anchors a constant [N, 4] float tensor, options as a flexbuffer map)",
            "custom_options": options,
            "input_range": [-1.0, 1.0],
            "versions": versions(tf, keras),
        })


# ====================================================================== torchvision via litert-torch


def build_torch(out, torch_python, only=None):
    if torch_python and os.path.abspath(torch_python) != os.path.abspath(sys.executable):
        cmd = [torch_python, os.path.abspath(__file__), "build", "torch", "--out", out] + (
            ["--only"] + only if only else [])
        r = subprocess.run(cmd)
        if r.returncode != 0:
            raise SystemExit(f"build torch under {torch_python} failed ({r.returncode})")
        return
    try:
        import torch
        import torchvision
        import litert_torch
    except ImportError as e:
        raise SystemExit(f"build torch needs torch, torchvision and litert-torch ({e}); "
                         "give --torch-python <venv>/bin/python")
    for name, ctor, side in TORCH_SELECTION:
        if not wanted([name], only):
            continue
        t0 = time.time()
        torch.manual_seed(seed_of(name))
        model = getattr(torchvision.models, ctor)(weights=None)
        stats = torch_trained_like(torch, model, name, side)
        sample = torch.zeros(1, 3, side, side)
        edge = litert_torch.convert(model, (sample,))
        with tempfile.TemporaryDirectory() as tmp:
            p = os.path.join(tmp, "m.tflite")
            edge.export(p)
            with open(p, "rb") as f:
                data = f.read()
        put_model(out, name, data, {
            "group": "torch", "origin": "converted",
            "architecture": f"torchvision.models.{ctor}(weights=None).eval(), NCHW input [1, 3, {side}, {side}]",
            "seed": f"torch.manual_seed({seed_of(name)}) (CRC-32 of {name!r})",
            "conversion": "litert_torch.convert(model, (torch.zeros(1, 3, H, W),)).export(path), float32",
            "input_range": [-1.0, 1.0],
            "statistics": stats,
            "versions": {"torch": torch.__version__, "torchvision": torchvision.__version__,
                         "litert-torch": getattr(litert_torch, "__version__", "?"), "numpy": np.__version__},
        })
        log(f"  {name}: {time.time() - t0:.0f} s")


def torch_trained_like(torch, model, name, side):
    """trained_like for torchvision: BatchNorm running statistics from one training-mode pass
    over BN_SAMPLES seeded images in [-1, 1] (momentum None: a cumulative average, so exactly
    that batch's statistics), then the last Linear scaled so the logits' standard deviation over
    classes is LOGIT_STD. Leaves the model in eval mode."""
    rng = np.random.default_rng(seed_of(name + "/batchnorm"))
    x = torch.from_numpy(rng.uniform(-1.0, 1.0, (BN_SAMPLES, 3, side, side)).astype(np.float32))
    bns = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    for m in bns:
        m.reset_running_stats()
        m.momentum = None
    model.train()
    with torch.no_grad():
        model(x)
    model.eval()
    last = [m for m in model.modules() if isinstance(m, torch.nn.Linear)][-1]
    with torch.no_grad():
        scale = LOGIT_STD / float(model(x).std(dim=1).mean())
        last.weight.mul_(scale)
        last.bias.mul_(scale)
    return {"batchnorm": f"running mean / variance of {len(bns)} BatchNorm layers from the batch statistics of "
                         f"{BN_SAMPLES} seeded images in [-1, 1] (numpy default_rng({seed_of(name + '/batchnorm')}))",
            "classifier": f"last Linear's weight and bias scaled by {scale:.4g}: logits' standard deviation over "
                          f"classes {LOGIT_STD} on those images"}


def cmd_build(args):
    os.makedirs(args.out, exist_ok=True)
    groups = args.groups or GROUPS
    for g in groups:
        if g not in GROUPS:
            raise SystemExit(f"unknown group {g!r} (groups: {' '.join(GROUPS)})")
    for g in groups:
        t0 = time.time()
        log(f"build {g}")
        if g == "tflm":
            build_from_sources(args.out, "tflm", args.tflm_git_dir)
        elif g == "public":
            build_from_sources(args.out, "public", args.public_dir)
        elif g == "keras":
            build_keras(args.out, args.only)
        elif g == "ssd":
            build_ssd(args.out, args.only)
        elif g == "torch":
            build_torch(args.out, args.torch_python, args.only)
        log(f"build {g}: {time.time() - t0:.0f} s")


# ====================================================================== reading a model


def schema_mod():
    from ai_edge_litert import schema_py_generated as schema

    return schema


def enum_names(cls):
    return {v: k for k, v in vars(cls).items() if not k.startswith("_")}


NP_TYPES = {
    "FLOAT32": np.float32, "FLOAT16": np.float16, "FLOAT64": np.float64, "INT8": np.int8, "UINT8": np.uint8,
    "INT16": np.int16, "UINT16": np.uint16, "INT32": np.int32, "UINT32": np.uint32, "INT64": np.int64,
    "UINT64": np.uint64, "BOOL": np.bool_,
}


def analyze(data):
    """Facts from the flatbuffer (not from a runtime)."""
    schema = schema_mod()
    ops_n, types_n = enum_names(schema.BuiltinOperator), enum_names(schema.TensorType)
    m = schema.ModelT.InitFromPackedBuf(data, 0)
    ops = collections.Counter()
    all_types, const_types, var_types = collections.Counter(), collections.Counter(), collections.Counter()
    sparse = 0
    for sg in m.subgraphs:
        for op in sg.operators:
            c = m.operatorCodes[op.opcodeIndex]
            code = max(c.builtinCode, c.deprecatedBuiltinCode)
            if code == schema.BuiltinOperator.CUSTOM:
                ops["CUSTOM:" + (c.customCode or b"").decode()] += 1
            else:
                ops[ops_n[code]] += 1
        for t in sg.tensors:
            ty = types_n[t.type]
            all_types[ty] += 1
            buf = m.buffers[t.buffer] if t.buffer < len(m.buffers) else None
            has = buf is not None and ((buf.data is not None and len(buf.data) > 0) or (buf.size or 0) > 0)
            (const_types if has else var_types)[ty] += 1
            if t.sparsity is not None:
                sparse += 1

    def tensor_info(sg, i):
        t = sg.tensors[i]
        q = t.quantization
        quant = None
        if q is not None and q.scale is not None and len(q.scale) > 0:
            quant = {"scale": [float(s) for s in q.scale][:8], "zero_point": [int(z) for z in q.zeroPoint][:8],
                     "channels": len(q.scale), "quantized_dimension": q.quantizedDimension}
        return {"index": int(i), "name": (t.name or b"").decode(), "dtype": types_n[t.type],
                "shape": [int(s) for s in t.shape] if t.shape is not None else [],
                "shape_signature": [int(s) for s in t.shapeSignature] if t.shapeSignature is not None else None,
                "quantization": quant}

    sg0 = m.subgraphs[0]
    return {
        "subgraphs": len(m.subgraphs),
        "operators": dict(sorted(ops.items())),
        "operator_total": sum(ops.values()),
        "tensor_types": dict(sorted(all_types.items())),
        "constant_tensor_types": dict(sorted(const_types.items())),
        "sparse_tensors": sparse,
        "inputs": [tensor_info(sg0, i) for i in sg0.inputs],
        "outputs": [tensor_info(sg0, i) for i in sg0.outputs],
        "description": (m.description or b"").decode(errors="replace"),
    }


def make_inputs(name, info, src):
    """Seeded inputs: INPUT_SPECS, else the converter's input range (source.json), else defaults."""
    rng = np.random.default_rng(seed_of(name))
    specs = INPUT_SPECS.get(name, [])
    xs = []
    for k, t in enumerate(info["inputs"]):
        spec = dict(specs[k]) if k < len(specs) else {}
        dt = NP_TYPES[t["dtype"]]
        shape = t["shape"]
        if "value" in spec:
            xs.append(np.array(spec["value"], dt).reshape(shape))
            continue
        if "range" not in spec and "input_range" in src and np.dtype(dt).kind == "f":
            spec["range"] = src["input_range"]
        if np.dtype(dt).kind == "f":
            lo, hi = spec.get("range", [-1.0, 1.0])
            xs.append(rng.uniform(lo, hi, shape).astype(dt))
        elif np.dtype(dt).kind == "b":
            xs.append(rng.integers(0, 2, shape).astype(bool))
        else:
            ii = np.iinfo(dt)
            lo, hi = spec.get("range", [0, 9] if dt in (np.int32, np.int64, np.uint32, np.uint64) else
                              [ii.min, ii.max])
            xs.append(rng.integers(lo, hi, shape, endpoint=True, dtype=np.int64).astype(dt))
    return xs


# ====================================================================== running in children


class Captured:
    """Redirects the process's stderr (fd 2) to a file: LiteRT and TFLM report errors there."""

    def __enter__(self):
        sys.stderr.flush()
        self.f = tempfile.TemporaryFile()
        self.saved = os.dup(2)
        os.dup2(self.f.fileno(), 2)
        return self

    def __exit__(self, *exc):
        sys.stderr.flush()
        os.dup2(self.saved, 2)
        os.close(self.saved)
        self.f.seek(0)
        self.text = self.f.read().decode(errors="replace")
        self.f.close()
        return False

    def lines(self, n=4):
        keep = [ln.strip() for ln in self.text.splitlines()
                if ln.strip() and "XNNPACK delegate" not in ln and "SUBGRAPH_RESHAPING" not in ln]
        return keep[:n]


def in_child(fn, *args, timeout=None):
    """fn(*args) in a forked child; its return value, or {'crash': reason} with the last lines
    the child printed on stderr (an abort's message)."""
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    log_file = tempfile.TemporaryFile()

    def run():
        os.dup2(log_file.fileno(), 2)
        try:
            child.send(fn(*args))
        except BaseException as e:  # noqa: BLE001 - everything goes back to the parent
            child.send({"error": f"{type(e).__name__}: {e}"})

    p = ctx.Process(target=run)
    p.start()
    child.close()
    got = None
    if parent.poll(timeout):
        try:
            got = parent.recv()
        except EOFError:
            got = None
    p.join(5 if got is not None else timeout)
    crash = None
    if p.is_alive():
        p.kill()
        p.join()
        crash = f"killed after {timeout} s"
    elif got is None:
        crash = f"exit code {p.exitcode}"
    if crash is not None:
        log_file.seek(0)
        printed = [ln.strip() for ln in log_file.read().decode(errors="replace").splitlines()
                   if ln.strip() and "XNNPACK delegate" not in ln and "SUBGRAPH_RESHAPING" not in ln]
        if printed:
            crash += ": " + " | ".join(printed[-3:])[:600]
        got = {"crash": crash}
    log_file.close()
    return got


RESOLVERS = {
    "ref": "BUILTIN_REF",
    "xnn": "AUTO",
    "builtin": "BUILTIN_WITHOUT_DEFAULT_DELEGATES",
}


def litert_interpreter(path, resolver, threads):
    from ai_edge_litert import interpreter as litert

    it = litert.Interpreter(model_path=path, num_threads=threads,
                            experimental_op_resolver_type=getattr(litert.OpResolverType, resolver))
    it.allocate_tensors()
    return it


def litert_run(path, resolver, ins, outdir, prefix):
    """Runs once, saves {prefix}{J}.npy; {'ok': True} or {'error': ...}."""
    with Captured() as cap:
        try:
            it = litert_interpreter(path, resolver, 1)
            for d, x in zip(it.get_input_details(), ins):
                it.set_tensor(d["index"], x)
            it.invoke()
            outs = [it.get_tensor(d["index"]) for d in it.get_output_details()]
            err = None
        except Exception as e:  # noqa: BLE001
            err = f"{type(e).__name__}: {str(e).strip()}"
    if err is not None:
        more = [ln for ln in cap.lines(6) if ln not in err]
        return {"error": (err + (" [" + " | ".join(more) + "]" if more else ""))[:1500]}
    for j, y in enumerate(outs):
        np.save(os.path.join(outdir, f"{prefix}{j}.npy"), y)
    return {"ok": True}


def tflm_probe(path, ins, arena, invoke):
    """Builds TFLM's interpreter with `arena` bytes (and invokes): None, or what went wrong."""
    from tflite_micro import runtime

    with open(path, "rb") as f:
        data = f.read()
    with Captured() as cap:
        try:
            it = runtime.Interpreter.from_bytes(data, arena_size=arena)
            if invoke:
                for k, x in enumerate(ins):
                    it.set_input(x, k)
                it.invoke()
                outs = []
                j = 0
                while True:
                    try:
                        outs.append(np.array(it.get_output(j)))
                    except Exception:  # noqa: BLE001 - past the last output
                        break
                    j += 1
            err = None
        except Exception as e:  # noqa: BLE001
            err = f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"
    if err is not None:
        printed = cap.lines(3)
        return {"error": err + (" [" + " | ".join(printed) + "]" if printed else "")}
    return {"ok": True, "outputs": outs if invoke else None}


def tflm_probe_isolated(path, ins, arena, invoke):
    r = in_child(tflm_probe, path, ins, arena, invoke, timeout=1200)
    if "crash" in r:
        return {"error": f"crashed ({r['crash']})"}
    return r


def compare(got, want, tol):
    """(matches, max |got - want|) with tol an absolute float tolerance, or None for exact."""
    got = np.asarray(got)
    if got.shape != want.shape:
        return False, None
    if want.dtype.kind == "f":
        d = np.abs(got.astype(np.float64) - want.astype(np.float64))
        d = np.where(np.isnan(d), np.inf, d) if d.size else d
        mx = float(d.max()) if d.size else 0.0
        bound = tol if tol is not None else 0.0
        return bool(np.all(d <= bound + 1e-5 + 1e-5 * np.abs(want.astype(np.float64)))), mx
    d = np.abs(got.astype(np.int64) - want.astype(np.int64)) if want.dtype.kind in "iub" else None
    mx = float(d.max()) if d is not None and d.size else 0.0
    return bool(np.array_equal(got.astype(want.dtype), want)), mx


def tflm_arena(path, ins, refs, tols):
    """TFLM's result: runs at TFLM_UPPER, then the smallest arena it builds in (binary search to
    the byte, each probe in a forked child: TFLM segfaults on some too-small arenas), checked
    by a full run at that size."""
    full = tflm_probe_isolated(path, ins, TFLM_UPPER, True)
    if "error" in full:
        return {"status": "refused", "error": full["error"][:1500]}, None
    outs = full["outputs"]
    res = {"status": "ok"}
    if refs is not None:
        cmp = [compare(o, r, t) for o, r, t in zip(outs, refs, tols)]
        res["matches_ref"] = all(c[0] for c in cmp) and len(outs) == len(refs)
        res["max_abs_diff_vs_ref"] = [c[1] for c in cmp]
    lo, hi, crashes = 0, TFLM_UPPER, []
    while hi - lo > 1:
        mid = (lo + hi) // 2
        r = tflm_probe_isolated(path, ins, mid, False)
        if "error" in r:
            lo = mid
            if r["error"].startswith("crashed"):
                crashes.append(mid)
        else:
            hi = mid
    check = tflm_probe_isolated(path, ins, hi, True)
    if "error" in check:  # building fits but running does not: search again with runs
        lo2, hi2 = hi, TFLM_UPPER
        while hi2 - lo2 > 1:
            mid = (lo2 + hi2) // 2
            if "error" in tflm_probe_isolated(path, ins, mid, True):
                lo2 = mid
            else:
                hi2 = mid
        hi = hi2
    res["arena_bytes"] = hi
    below = tflm_probe_isolated(path, ins, hi - 1, False)
    res["error_one_byte_below"] = below.get("error", "builds (needs the run to fail)")[:300]
    if crashes:
        res["segfaults_at_arena_sizes"] = sorted(crashes)[:8]
    return res, outs


# ====================================================================== references


def float_tolerance(ref, xnn):
    """The project's float tolerance: max(4 * max|ref - xnn|, 1e-5 * max|ref|)."""
    r = ref.astype(np.float64)
    mref = float(np.max(np.abs(r))) if r.size else 0.0
    if xnn is None or xnn.shape != ref.shape:
        return 1e-5 * mref, None
    d = float(np.max(np.abs(r - xnn.astype(np.float64)))) if r.size else 0.0
    return max(4 * d, 1e-5 * mref), d


def load_outputs(d, prefix):
    outs, j = [], 0
    while os.path.exists(os.path.join(d, f"{prefix}{j}.npy")):
        outs.append(np.load(os.path.join(d, f"{prefix}{j}.npy")))
        j += 1
    return outs


def refs_one(out, name):
    d = os.path.join(out, name)
    path = os.path.join(d, "model.tflite")
    with open(path, "rb") as f:
        data = f.read()
    for fn in os.listdir(d):
        if fn.endswith(".npy"):
            os.remove(os.path.join(d, fn))
    info = analyze(data)
    src = read_json(os.path.join(d, "source.json"), {})
    ins = make_inputs(name, info, src)
    for k, x in enumerate(ins):
        np.save(os.path.join(d, f"in{k}.npy"), x)
    runtimes = {}
    for key, resolver in (("litert_ref", "BUILTIN_REF"), ("litert_xnnpack", "AUTO")):
        prefix = "ref_out" if key == "litert_ref" else "xnn_out"
        r = in_child(litert_run, path, resolver, ins, d, prefix, timeout=1800)
        runtimes[key] = {"ok": True} if r.get("ok") else {"error": r.get("error") or f"crashed ({r.get('crash')})"}
    refs = load_outputs(d, "ref_out") if runtimes["litert_ref"].get("ok") else None
    xnns = load_outputs(d, "xnn_out") if runtimes["litert_xnnpack"].get("ok") else None
    tolerances, tols = [], []
    var_types = set(info["tensor_types"]) - {k for k, v in info["constant_tensor_types"].items()
                                             if v == info["tensor_types"][k]}
    quantized_activations = bool(var_types & {"INT8", "UINT8", "INT16"})
    for j, t in enumerate(info["outputs"]):
        ref = refs[j] if refs else None
        xnn = xnns[j] if xnns else None
        entry = {"output": j, "dtype": t["dtype"]}
        if ref is None:
            entry["tolerance"] = None
            entry["note"] = "no BUILTIN_REF output (LiteRT's reference kernels did not run the model)"
            if xnn is not None:
                entry["note"] += "; xnn_out (XNNPACK, which has its own kernels for MediaPipe's custom " \
                                 "operators) is the only LiteRT output"
            tols.append(None)
        elif ref.dtype.kind == "f":
            tol, diff = float_tolerance(ref, xnn)
            entry.update({"kind": "float", "atol": tol, "max_abs_ref_xnn": diff,
                          "max_abs_ref": float(np.max(np.abs(ref))) if ref.size else 0.0})
            if quantized_activations:
                entry["note"] = ("the network computes in int8 / uint8 before this float output: XNNPACK's integer "
                                 "rounding differs from the reference kernels', which makes atol loose; the target is "
                                 "ref_out, exact up to float rounding after the last DEQUANTIZE")
            tols.append(tol)
        else:
            entry["kind"] = "exact (bit-equal to ref_out)"
            if xnn is not None and xnn.shape == ref.shape:
                entry["max_abs_ref_xnn"] = float(np.max(np.abs(ref.astype(np.int64) - xnn.astype(np.int64)))) \
                    if ref.size else 0.0
            tols.append(None)
        tolerances.append(entry)
    t0 = time.time()
    tflm, touts = tflm_arena(path, ins, refs, tols)
    tflm["seconds"] = round(time.time() - t0, 1)
    if touts is not None:
        for j, y in enumerate(touts):
            np.save(os.path.join(d, f"tflm_out{j}.npy"), y)
    runtimes["tflm"] = tflm
    if refs is None and touts is not None:
        for e in tolerances:
            e["note"] += "; tflm_out is the only output there is"
    old = read_json(os.path.join(d, "manifest.json"), {})
    manifest = {
        "name": name,
        "source": src,
        "file_bytes": len(data),
        "sha256": sha256(data),
        **info,
        "input_files": [f"in{k}.npy" for k in range(len(ins))],
        "input_generation": f"numpy.random.default_rng({seed_of(name)}) (CRC-32 of the name); "
                            + json.dumps(INPUT_SPECS.get(name) or
                                         ({"range": src["input_range"]} if "input_range" in src else "defaults")),
        "runtimes": runtimes,
        "tolerances": tolerances,
        "tflm_arena_bytes": tflm.get("arena_bytes"),
        "reference_versions": reference_versions(),
    }
    if "latency_us" in old and old.get("sha256") == manifest["sha256"]:
        manifest["latency_us"] = old["latency_us"]
        manifest["latency_machine"] = old.get("latency_machine")
    write_json(os.path.join(d, "manifest.json"), manifest)
    return manifest


def reference_versions():
    import importlib.metadata as md

    v = {}
    for p in ("ai-edge-litert", "tflite-micro", "numpy"):
        try:
            v[p] = md.version(p)
        except md.PackageNotFoundError:
            v[p] = None
    return v


def cmd_refs(args):
    names = model_dirs(args.out, args.names)
    t_all = time.time()
    for name in names:
        t0 = time.time()
        m = refs_one(args.out, name)
        rt = m["runtimes"]
        status = " ".join(f"{k}={'ok' if (v.get('ok') or v.get('status') == 'ok') else 'FAIL'}" for k, v in rt.items())
        log(f"  {name}: {status} arena={m['tflm_arena_bytes']} ({time.time() - t0:.0f} s)")
    log(f"refs: {len(names)} models, {time.time() - t_all:.0f} s")


# ====================================================================== latency


def timed_invokes(fn, budget_s, min_runs, max_runs):
    fn()  # warm-up (first invoke packs weights, builds caches)
    per = []
    t_end = time.perf_counter() + budget_s
    while len(per) < min_runs or (time.perf_counter() < t_end and len(per) < max_runs):
        t0 = time.perf_counter_ns()
        fn()
        per.append((time.perf_counter_ns() - t0) / 1000.0)
    return {"median_us": round(statistics.median(per), 1), "min_us": round(min(per), 1), "runs": len(per)}


def bench_litert(path, resolver, threads, ins, budget):
    with Captured():
        try:
            it = litert_interpreter(path, resolver, threads)
            for d, x in zip(it.get_input_details(), ins):
                it.set_tensor(d["index"], x)
            return timed_invokes(it.invoke, budget, 3, 2000)
        except Exception as e:  # noqa: BLE001
            err = f"{type(e).__name__}: {str(e).strip()}"[:300]
    return {"error": err}


def bench_tflm(path, ins, arena, budget):
    from tflite_micro import runtime

    with open(path, "rb") as f:
        data = f.read()
    with Captured():
        try:
            it = runtime.Interpreter.from_bytes(data, arena_size=arena)

            def run():  # TFLM may reuse input memory for later tensors: set the inputs each time
                for k, x in enumerate(ins):
                    it.set_input(x, k)
                it.invoke()

            return timed_invokes(run, budget, 3, 2000)
        except Exception as e:  # noqa: BLE001
            err = f"{type(e).__name__}: {str(e).strip()}"[:300]
    return {"error": err}


def cpu_model():
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for ln in f:
                if ln.startswith("model name"):
                    model = ln.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"cpu": model, "logical_cpus": os.cpu_count(), "load_average_at_start": os.getloadavg()}


def cmd_bench(args):
    names = model_dirs(args.out, args.names)
    machine = cpu_model()
    log(f"bench on {machine}")
    t_all = time.time()
    for name in names:
        d = os.path.join(args.out, name)
        path = os.path.join(d, "model.tflite")
        man = read_json(os.path.join(d, "manifest.json"))
        if man is None:
            log(f"  {name}: no manifest (run refs first)")
            continue
        ins = [np.load(os.path.join(d, f)) for f in man["input_files"]]
        lat = {}
        t0 = time.time()
        for key, resolver, threads in (("litert_xnnpack_1t", "AUTO", 1), ("litert_xnnpack_2t", "AUTO", 2),
                                       ("litert_builtin_1t", "BUILTIN_WITHOUT_DEFAULT_DELEGATES", 1),
                                       ("litert_ref_1t", "BUILTIN_REF", 1)):
            r = in_child(bench_litert, path, resolver, threads, ins, args.seconds, timeout=3600)
            lat[key] = r if "crash" not in r else {"error": f"crashed ({r['crash']})"}
        arena = man.get("tflm_arena_bytes")
        if arena:
            r = in_child(bench_tflm, path, ins, arena, args.seconds, timeout=3600)
            lat["tflm"] = r if "crash" not in r else {"error": f"crashed ({r['crash']})"}
            lat["tflm"]["arena_bytes"] = arena
            lat["tflm"]["timed"] = "set_input + invoke"
        man["latency_us"] = lat
        man["latency_machine"] = machine
        write_json(os.path.join(d, "manifest.json"), man)
        short = " ".join(f"{k}={v.get('median_us', 'x')}" for k, v in lat.items())
        log(f"  {name}: {short} ({time.time() - t0:.0f} s)")
    log(f"bench: {len(names)} models, {time.time() - t_all:.0f} s")


# ====================================================================== committed subset


def cmd_small(args):
    """Copies the models we made (not public ones) under SMALL_MAX_BYTES, with their inputs and
    outputs, to small/ (committed; CI's Rust tests read them without TensorFlow)."""
    if os.path.isdir(SMALL):
        for n in os.listdir(SMALL):
            if os.path.isdir(os.path.join(SMALL, n)):
                shutil.rmtree(os.path.join(SMALL, n))
    os.makedirs(SMALL, exist_ok=True)
    total, kept = 0, []
    for name in model_dirs(args.out):
        d = os.path.join(args.out, name)
        man = read_json(os.path.join(d, "manifest.json"))
        if not man or man["source"].get("origin") != "converted" or man["file_bytes"] > SMALL_MAX_BYTES:
            continue
        if not man["runtimes"]["litert_ref"].get("ok"):
            continue
        files = ["model.tflite", "source.json", "manifest.json"] + sorted(
            f for f in os.listdir(d) if f.endswith(".npy"))
        size = sum(os.path.getsize(os.path.join(d, f)) for f in files)
        if total + size > SMALL_TOTAL_MAX:
            log(f"  {name}: left out ({size} bytes would pass {SMALL_TOTAL_MAX})")
            continue
        os.makedirs(os.path.join(SMALL, name))
        for f in files:
            shutil.copyfile(os.path.join(d, f), os.path.join(SMALL, name, f))
        total += size
        kept.append((name, size))
        log(f"  {name}: {size} bytes")
    log(f"small/: {len(kept)} models, {total} bytes")


# ====================================================================== report


def fmt_us(v):
    if not v or "median_us" not in v:
        return "–"
    us = v["median_us"]
    return f"{us / 1000:.1f} ms" if us >= 10000 else f"{us:.0f} µs" if us >= 100 else f"{us:.1f} µs"


def short_op(o):
    return o.replace("CUSTOM:", "custom ")


def tessera_kernels(path):
    """Operator names tessera runs, from its kernels/mod.rs: the `pub static ALL` array, or the
    `kernels! { builtin { module: [OP, ...] + [OP_INT8, ...]; ... } }` table that builds it
    (`_INT8` entries are int8 kernels of an operator listed beside them)."""
    with open(path) as f:
        text = f.read()
    names = set()
    table = text.rsplit("kernels! {", 1)[1] if "kernels! {" in text else None
    if table is not None:
        body = table.split("custom", 1)[0]  # with or without `builtin { }` / `custom { }` sections
        for group in re.findall(r"\[([^\]]*)\]", body):
            names.update(re.findall(r"\b[A-Z][A-Z0-9_]+\b", group))
    else:
        block = text.split("pub static ALL", 1)[1].split("];", 1)[0]
        names.update(re.findall(r"&([A-Z][A-Z0-9_]+)", block))
    return {n for n in names if not (n.endswith("_INT8") and n[:-5] in names)}


def cmd_report(args):
    names = model_dirs(args.out)
    mans = [read_json(os.path.join(args.out, n, "manifest.json")) for n in names]
    mans = [m for m in mans if m]
    lines = []
    machine = next((m.get("latency_machine") for m in mans if m.get("latency_machine")), None)
    lines.append(f"{len(mans)} models. Latency: median per invoke, 1 thread"
                 + (f", on {machine['cpu']} ({machine['logical_cpus']} logical CPUs, shared with other work: "
                    "take ratios, not absolute numbers)" if machine else "") + ". TFLM arena: smallest "
                 "`arena_size` TFLM's Python interpreter runs the model in. `–`: did not run (see the manifest).")
    lines.append("")
    lines.append("| model | group | bytes | operators (count) | LiteRT ref | LiteRT XNNPACK | TFLM | TFLM arena | "
                 "XNNPACK 1t | XNNPACK 2t | builtin 1t | ref 1t | TFLM |")
    lines.append("| --- | --- | ---: | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for m in mans:
        rt = m["runtimes"]
        ops = ", ".join(f"{short_op(k)} {v}" for k, v in sorted(m["operators"].items(), key=lambda kv: -kv[1]))
        tf = rt["tflm"]
        tflm_cell = "no" if tf.get("status") != "ok" else ("yes" if tf.get("matches_ref", True) else "yes, differs")
        if tf.get("status") == "ok" and "matches_ref" not in tf:
            tflm_cell = "yes (no ref)"
        lat = m.get("latency_us", {})
        arena = m["tflm_arena_bytes"]
        cells = [f"`{m['name']}`", m["source"].get("group", "?"), f"{m['file_bytes']:,}", ops,
                 "yes" if rt["litert_ref"].get("ok") else "no", "yes" if rt["litert_xnnpack"].get("ok") else "no",
                 tflm_cell, f"{arena:,}" if isinstance(arena, int) else "–"]
        cells += [fmt_us(lat.get(k)) for k in ("litert_xnnpack_1t", "litert_xnnpack_2t", "litert_builtin_1t",
                                               "litert_ref_1t", "tflm")]
        lines.append("| " + " | ".join(cells) + " |")
    models_table = "\n".join(lines)

    use = collections.Counter()
    total = collections.Counter()
    for m in mans:
        for k, v in m["operators"].items():
            use[k] += 1
            total[k] += v
    kern = tessera_kernels(args.kernels) if args.kernels else None
    ol = ["| operator | models using it | instances | in tessera |" if kern else
          "| operator | models using it | instances |",
          "| --- | ---: | ---: | --- |" if kern else "| --- | ---: | ---: |"]
    for k, v in sorted(use.items(), key=lambda kv: (-kv[1], kv[0])):
        row = f"| {k} | {v} | {total[k]} |"
        if kern:
            row += f" {'yes' if k in kern else 'no'} |"
        ol.append(row)
    ops_table = "\n".join(ol)

    grouped = collections.OrderedDict()  # the same error on several models: one line
    for m in mans:
        for k, v in m["runtimes"].items():
            e = v.get("error")
            if e:
                e = " ".join(e.split())[:300]
                e = re.sub(r"\(number \d+\)", "(number N)", e)
                if "Encountered unresolved custom op" in e:
                    e = e.split(" See instructions")[0]
                grouped.setdefault((k, e), []).append(m["name"])
    err_text = "\n".join(f"- {k}: {', '.join(f'`{n}`' for n in names)}: {e}" for (k, e), names in grouped.items())

    if args.kernels:
        log("Operators tessera lacks, per model:")
        for m in mans:
            miss = sorted(o for o in m["operators"] if o not in kern)
            log(f"  {m['name']}: {', '.join(miss) if miss else '(none)'}")
    if args.write_readme:
        with open(README) as f:
            text = f.read()
        for tag, body in (("models", models_table), ("operators", ops_table), ("errors", err_text)):
            b, e = f"<!-- corpus:{tag}:begin -->", f"<!-- corpus:{tag}:end -->"
            if b in text and e in text:
                text = text.split(b)[0] + b + "\n" + body + "\n" + e + text.split(e, 1)[1]
        with open(README, "w") as f:
            f.write(text)
        log(f"wrote the tables into {README}")
    else:
        print(models_table)
        print()
        print(ops_table)
        print()
        print(err_text)


# ====================================================================== main


def cmd_all(args):
    t0 = time.time()
    # Builds run in a fresh process: TensorFlow's threads must not be forked by the references.
    base = [sys.executable, os.path.abspath(__file__)]
    common = ["--out", args.out]
    for flag, val in (("--tflm-git-dir", args.tflm_git_dir), ("--public-dir", args.public_dir),
                      ("--torch-python", args.torch_python)):
        if val:
            common += [flag, val]
    groups = [g for g in GROUPS if g != "torch" or args.torch_python]
    timings = {}
    for g in groups:
        t = time.time()
        r = subprocess.run(base + ["build", g] + common)
        if r.returncode != 0:
            raise SystemExit(f"build {g} failed")
        timings[f"build {g}"] = time.time() - t
    t = time.time()
    cmd_refs(argparse.Namespace(out=args.out, names=None))
    timings["refs"] = time.time() - t
    t = time.time()
    cmd_bench(argparse.Namespace(out=args.out, names=None, seconds=args.seconds))
    timings["bench"] = time.time() - t
    cmd_small(args)
    log("timings: " + ", ".join(f"{k} {v:.0f} s" for k, v in timings.items()) + f"; total {time.time() - t0:.0f} s")


def main(argv=None):
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--out", default=DEFAULT_OUT, help="output folder (default tests/corpus/models/)")
    common.add_argument("--tflm-git-dir", help="a clone of tensorflow/tflite-micro (work tree or git directory)")
    common.add_argument("--public-dir", help="a folder of clones of the public repositories (see above)")
    common.add_argument("--torch-python", help="a Python with torch, torchvision and litert-torch (build torch)")
    common.add_argument("--seconds", type=float, default=1.0, help="timing budget per model and runtime (bench)")
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", parents=[common], help="make model files: groups " + " ".join(GROUPS))
    b.add_argument("groups", nargs="*")
    b.add_argument("--only", nargs="*", help="name prefixes within keras / ssd / torch")
    sub.add_parser("refs", parents=[common], help="inputs, reference outputs, TFLM arena, manifest").add_argument(
        "names", nargs="*")
    sub.add_parser("bench", parents=[common], help="latencies into the manifests").add_argument("names", nargs="*")
    sub.add_parser("small", parents=[common], help="refresh the committed subset small/")
    rep = sub.add_parser("report", parents=[common], help="tables for README.md")
    rep.add_argument("--write-readme", action="store_true")
    rep.add_argument("--kernels", help="tessera's kernels/mod.rs: mark the operators it has")
    sub.add_parser("record-sources", parents=[common], help="rewrite sources.json from the clones")
    sub.add_parser("all", parents=[common], help="build every group, refs, bench, small")
    args = p.parse_args(argv)
    args.out = os.path.abspath(args.out)
    {"build": cmd_build, "refs": cmd_refs, "bench": cmd_bench, "small": cmd_small, "report": cmd_report,
     "record-sources": cmd_record_sources, "all": cmd_all}[args.cmd](args)


if __name__ == "__main__":
    main()
