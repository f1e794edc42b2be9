/* A CUDA driver library on the host, for the GPU-mode plumbing of `kina tune`
 * on machines without a GPU (gpu-plumbing.test, through KINA_LIBCUDA): one
 * "H200" (sm 9.0, 132 SMs), device memory is host memory, modules load any
 * image, launches run nothing (outputs keep their fill) and every timed
 * interval is 0.25 ms. HOST_CUDA_FAULT_LAUNCH=n makes the n-th launch of the
 * process fail with CUDA_ERROR_ILLEGAL_ADDRESS (700), as a faulting kernel's
 * does. It tests the tuner's processes, protocol and bookkeeping, never a
 * kernel's result or speed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
static int ctx_dummy, mod_dummy, fn_dummy, ev_dummy, stream_dummy;
static long launches;

static CUresult launch_result(void) {
  const char *f = getenv("HOST_CUDA_FAULT_LAUNCH");
  ++launches;
  return f && atol(f) == launches ? 700 : 0;
}

CUresult cuInit(unsigned f) {
  (void)f;
  return 0;
}
CUresult cuDriverGetVersion(int *v) {
  *v = 13000;
  return 0;
}
CUresult cuGetErrorName(CUresult r, const char **s) {
  *s = r == 700 ? "CUDA_ERROR_ILLEGAL_ADDRESS" : "CUDA_ERROR_UNKNOWN";
  return 0;
}
CUresult cuGetErrorString(CUresult r, const char **s) {
  *s = r == 700 ? "an illegal memory access was encountered" : "unknown error";
  return 0;
}
CUresult cuDeviceGetCount(int *n) {
  *n = 1;
  return 0;
}
CUresult cuDeviceGet(int *d, int o) {
  *d = o;
  return 0;
}
CUresult cuDeviceGetName(char *s, int n, int d) {
  (void)d;
  strncpy(s, "host CUDA driver (tests)", (size_t)n);
  return 0;
}
CUresult cuDeviceGetAttribute(int *v, int a, int d) {
  (void)d;
  switch (a) {
  case 1:
    *v = 1024;
    break;
  case 2:
  case 3:
    *v = 1024;
    break;
  case 4:
    *v = 64;
    break;
  case 5:
    *v = 2147483647;
    break;
  case 6:
  case 7:
    *v = 65535;
    break;
  case 8:
    *v = 48 * 1024;
    break;
  case 13:
    *v = 1980000;
    break;
  case 16:
    *v = 132;
    break;
  case 38:
    *v = 4 * 1024 * 1024;
    break; /* small: the L2 flush is a host memset here */
  case 75:
    *v = 9;
    break;
  case 76:
    *v = 0;
    break;
  case 81:
    *v = 228 * 1024;
    break;
  case 97:
    *v = 227 * 1024;
    break;
  default:
    *v = 0;
    break;
  }
  return 0;
}
CUresult cuDeviceTotalMem_v2(size_t *b, int d) {
  (void)d;
  *b = (size_t)16 << 30;
  return 0;
}
CUresult cuDevicePrimaryCtxRetain(void **c, int d) {
  (void)d;
  *c = &ctx_dummy;
  return 0;
}
CUresult cuDevicePrimaryCtxRelease_v2(int d) {
  (void)d;
  return 0;
}
CUresult cuCtxSetCurrent(void *c) {
  (void)c;
  return 0;
}
CUresult cuCtxSynchronize(void) { return 0; }
CUresult cuMemGetInfo_v2(size_t *f, size_t *t) {
  *f = *t = (size_t)16 << 30;
  return 0;
}
CUresult cuModuleLoadDataEx(void **m, const void *img, unsigned n, void *o, void **v) {
  (void)img;
  (void)n;
  (void)o;
  (void)v;
  *m = &mod_dummy;
  return 0;
}
CUresult cuModuleUnload(void *m) {
  (void)m;
  return 0;
}
CUresult cuModuleGetFunction(void **f, void *m, const char *name) {
  (void)m;
  (void)name;
  *f = &fn_dummy;
  return 0;
}
CUresult cuFuncGetAttribute(int *v, int a, void *f) {
  (void)f;
  *v = a == 0 ? 1024 : a == 4 ? 168 : 0;
  return 0;
}
CUresult cuFuncSetAttribute(void *f, int a, int v) {
  (void)f;
  (void)a;
  (void)v;
  return 0;
}
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
  void *m = malloc(n ? n : 1);
  if (!m)
    return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
  *p = (CUdeviceptr)(uintptr_t)m;
  return 0;
}
CUresult cuMemFree_v2(CUdeviceptr p) {
  free((void *)(uintptr_t)p);
  return 0;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *h, size_t n) {
  memcpy((void *)(uintptr_t)d, h, n);
  return 0;
}
CUresult cuMemcpyDtoH_v2(void *h, CUdeviceptr d, size_t n) {
  memcpy(h, (const void *)(uintptr_t)d, n);
  return 0;
}
CUresult cuMemsetD8_v2(CUdeviceptr d, unsigned char v, size_t n) {
  memset((void *)(uintptr_t)d, v, n);
  return 0;
}
CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, void *s) {
  (void)s;
  memset((void *)(uintptr_t)d, v, n);
  return 0;
}
CUresult cuStreamCreate(void **s, unsigned f) {
  (void)f;
  *s = &stream_dummy;
  return 0;
}
CUresult cuStreamDestroy_v2(void *s) {
  (void)s;
  return 0;
}
CUresult cuStreamSynchronize(void *s) {
  (void)s;
  return 0;
}
CUresult cuEventCreate(void **e, unsigned f) {
  (void)f;
  *e = &ev_dummy;
  return 0;
}
CUresult cuEventDestroy_v2(void *e) {
  (void)e;
  return 0;
}
CUresult cuEventRecord(void *e, void *s) {
  (void)e;
  (void)s;
  return 0;
}
CUresult cuEventSynchronize(void *e) {
  (void)e;
  return 0;
}
CUresult cuEventElapsedTime(float *ms, void *a, void *b) {
  (void)a;
  (void)b;
  *ms = 0.25f;
  return 0;
}
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned sh, void *s, void **p, void **x) {
  (void)f;
  (void)gx;
  (void)gy;
  (void)gz;
  (void)bx;
  (void)by;
  (void)bz;
  (void)sh;
  (void)s;
  (void)p;
  (void)x;
  return launch_result();
}
CUresult cuLaunchKernelEx(const void *c, void *f, void **p, void **x) {
  (void)c;
  (void)f;
  (void)p;
  (void)x;
  return launch_result();
}
CUresult cuTensorMapEncodeTiled(void *map, int dt, unsigned rank, void *addr,
                                const unsigned long long *dims, const unsigned long long *strides,
                                const unsigned *box, const unsigned *es, int il, int sw, int l2,
                                int oob) {
  (void)dt;
  (void)rank;
  (void)addr;
  (void)dims;
  (void)strides;
  (void)box;
  (void)es;
  (void)il;
  (void)sw;
  (void)l2;
  (void)oob;
  memset(map, 0, 128);
  return 0;
}
