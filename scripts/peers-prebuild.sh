#!/usr/bin/env bash
# peers-prebuild.sh — builds the CUDA peers of scripts/gpu-peers.py here, on a machine with the
# CUDA toolkit and no GPU, so that a GPU lease spends no time compiling them and needs nothing
# the GPU image may lack (nvbandwidth needs Boost's program_options, linked statically here):
#   build-peers/babelstream-cuda/cuda-stream   BabelStream's CUDA model (grid-stride, unroll 4)
#   build-peers/nvbandwidth/nvbandwidth        nvbandwidth
# Both are linked against the driver's libraries by soname (libcuda.so.1, libnvidia-ml.so.1),
# which the GPU machine's driver provides: here they link against the toolkit's libcuda stub and
# a stub libnvidia-ml built from tools/peer-nvml (declarations of the NVML calls they make: the
# toolkit here has no nvml.h). The sources are fetched by hand into build-peers/src/{BabelStream,nvbandwidth}
# (never committed). Carry build-peers/src, build-peers/babelstream-cuda and
# build-peers/nvbandwidth; gpu-peers.py uses a prebuilt binary as it is and builds on the GPU
# machine only without one.
#
#   scripts/peers-prebuild.sh [--arch SM]     (default 90: H100 / H200)
# Needs: nvcc (CUDA_HOME or /usr/local/cuda), a C++ compiler, cmake, Boost program_options
# (Debian: libboost-program-options-dev). Exit status: 0 both built; 1 one did not (it says
# why; the other is still built); 2 usage or no toolkit.
set -uo pipefail
cd "$(dirname "$0")/.."
arch=90
while (($#)); do
  case "$1" in
    --arch) arch=${2:?--arch needs a number such as 90}; shift 2 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "peers-prebuild: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ "$arch" =~ ^[0-9]+$ ]] || { echo "peers-prebuild: --arch needs a number, not '$arch'" >&2; exit 2; }
tk=${CUDA_HOME:-/usr/local/cuda}
nvcc=$tk/bin/nvcc
[ -x "$nvcc" ] || { echo "peers-prebuild: no $nvcc (set CUDA_HOME)" >&2; exit 2; }
stubs=""
for d in "$tk/lib64/stubs" "$tk/targets/x86_64-linux/lib/stubs"; do
  [ -e "$d/libcuda.so" ] && { stubs=$d; break; }
done
[ -n "$stubs" ] || { echo "peers-prebuild: no libcuda stub under $tk" >&2; exit 2; }

src=build-peers/src
# The NVML calls both peers make, declared once for both (the toolkit here has no nvml.h), and a
# link-time stand-in for the driver's library, with its soname.
decls=$PWD/tools/peer-nvml
stub=$PWD/build-peers/nvml-stub
mkdir -p "$stub"
cc -shared -fPIC -O1 -I"$decls" -Wl,-soname,libnvidia-ml.so.1 "$decls/nvml_stub.c" \
  -o "$stub/libnvidia-ml.so" || { echo "peers-prebuild: the NVML link stub did not build" >&2; exit 2; }

status=0
# BabelStream's CUDA model.
bs=$src/BabelStream/src
if [ -f "$bs/main.cpp" ]; then
  mkdir -p build-peers/babelstream-cuda
  echo "peers-prebuild: BabelStream (sm_$arch) ..."
  if "$nvcc" -O3 -std=c++17 -arch="sm_$arch" --extended-lambda -DCUDA -DGRID_STRIDE \
       -DUNROLL_FACTOR=4 -I"$bs" -I"$bs/cuda" -I"$decls" "$bs/main.cpp" "$bs/cuda/CUDAStream.cu" \
       -L"$stub" -L"$stubs" -lnvidia-ml -lcuda -o build-peers/babelstream-cuda/cuda-stream \
       >build-peers/babelstream-cuda/build.log 2>&1; then
    echo "peers-prebuild: built build-peers/babelstream-cuda/cuda-stream"
  else
    echo "peers-prebuild: BabelStream did not build: $(tail -3 build-peers/babelstream-cuda/build.log)" >&2
    status=1
  fi
else
  echo "peers-prebuild: no $bs/main.cpp: fetch github.com/UoB-HPC/BabelStream into $src/BabelStream" >&2
  status=1
fi

# nvbandwidth (CMake; Boost program_options static).
nb=$src/nvbandwidth
if [ -f "$nb/CMakeLists.txt" ]; then
  echo "peers-prebuild: nvbandwidth (sm_$arch) ..."
  b=build-peers/nvbandwidth-build
  if cmake -S "$nb" -B "$b" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$nvcc" \
       -DCMAKE_CUDA_ARCHITECTURES="$arch" -DCMAKE_CXX_FLAGS="-I$decls" \
       -DCMAKE_CUDA_FLAGS="-I$decls" -DCMAKE_EXE_LINKER_FLAGS="-L$stub -L$stubs" >build-peers/nvbandwidth-build.log 2>&1 &&
     cmake --build "$b" -j "$(nproc)" >>build-peers/nvbandwidth-build.log 2>&1; then
    mkdir -p build-peers/nvbandwidth
    cp "$b/nvbandwidth" build-peers/nvbandwidth/nvbandwidth
    echo "peers-prebuild: built build-peers/nvbandwidth/nvbandwidth"
  else
    echo "peers-prebuild: nvbandwidth did not build: $(grep -m2 -E 'Error|error|Boost' build-peers/nvbandwidth-build.log)" >&2
    status=1
  fi
else
  echo "peers-prebuild: no $nb/CMakeLists.txt: fetch github.com/NVIDIA/nvbandwidth into $nb" >&2
  status=1
fi
for f in build-peers/babelstream-cuda/cuda-stream build-peers/nvbandwidth/nvbandwidth; do
  [ -x "$f" ] && echo "  $f needs: $(ldd "$f" 2>/dev/null | awk '/not found|nvidia-ml|libcuda/ {print $1}' | paste -sd ' ' -)"
done
exit $status
