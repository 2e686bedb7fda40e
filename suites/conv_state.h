/* The private state of the conv suite (suites/conv.c) and its pure helpers, shared with its tests:
 * tests/test_broken_kernels.c corrupts outputs to prove that verify catches them,
 * tests/test_presets.c checks the shape parser. Nothing else may use it. */
#ifndef GB_SUITES_CONV_STATE_H
#define GB_SUITES_CONV_STATE_H

#include "run/suite.h"
#include "suites/common.h"

enum cvprec { CV_F32, CV_TF32, CV_F16, CV_BF16, CV_I8, CV_COUNT };

struct conv {
    struct gb_test_hook hook; /* first: tests build broken kernels through it */
    enum cvprec p;
    bool own;
    struct gb_conv c;    /* the problem (its buffers once allocated) */
    uint64_t pp, qq;     /* output size */
    uint64_t nx, nw, ny; /* elements */
    double *a64, *b64;   /* the two inputs' FP64 draws, in the device's layout */
    struct gb_buf *x, *w, *y;
    struct gb_conv_plan *plan; /* library */
    struct gb_program *prog;   /* own */
    struct gb_kernel *kern;
    struct gb_launch l;
    char config[64];
    double tol, rms, tolerance;
    bool normwise; /* the library's algorithm is a transform (FFT, Winograd): normwise check */
};

/* Parses an explicit convolution shape "NxCxHxW-KxRxS" with optional suffixes "-sA[xB]"
 * (strides), "-pA[xB]" (padding), "-dA[xB]" (dilations) and "-gG" (groups), each once, in any
 * order (A for both dimensions unless B is given): "1x64x56x56-64x3x3-p1",
 * "8x32x112x112-32x3x3-p1-g32" (depthwise). Checks the geometry with gb_conv_out_dims. true with
 * *sh filled; false with what is wrong in why[0..len). Pure; exposed for tests. */
bool gb__conv_parse_shape(const char *s, struct gb_conv_shape *sh, char *why, size_t len);

/* The FP64 reference of one output element of the pass c->dir, the inputs' draws a (x for fwd
 * and bwd_filter, dy for bwd_data) and b (w for fwd and bwd_data, dy for bwd_filter) laid out
 * as c->layout says, `e` the element's offset in the output tensor (y, dx or dw): the sum in
 * long double, and in *mag the sum of the terms' magnitudes (the scale of the relative error),
 * in *terms how many terms it has. Exposed for tests. */
double gb__conv_ref(const struct gb_conv *c, uint64_t pp, uint64_t qq, const double *a,
                    const double *b, uint64_t e, double *mag, uint64_t *terms);

#endif
