/* Tunable 2-D tiled transpose: out = in^T for a row-major rows x cols matrix (out is cols x rows).
 *
 * Tunables (-D), the tuning suite's search space (suites/tuning.c):
 *   TILE   side of the square tile a work-group moves
 *   ROWS   rows of the tile each work-item copies: the work-group is TILE x (TILE / ROWS)
 *          work-items (after NVIDIA's "Optimizing matrix transpose in CUDA", Ruetsch and
 *          Micikevicius, 2009: TILE 32, ROWS 4 there, i.e. BLOCK_ROWS 8)
 *   LOCAL  1: the tile goes through local memory, so both the reads and the writes of global
 *             memory are along rows (coalesced); 0: direct, reads along rows and writes along
 *             columns
 *   PAD    0 or 1 extra column in the local tile, so a column of the tile spreads over the
 *          local-memory banks (no bank conflicts on the transposed read)
 *
 * Launch: global (cols, rows / ROWS), local (TILE, TILE / ROWS); the tuning suite prunes a
 * configuration whose work-group does not divide the matrix, so there are no bounds checks.
 */

#ifndef TILE
#define TILE 32
#endif
#ifndef ROWS
#define ROWS 4
#endif
#ifndef LOCAL
#define LOCAL 1
#endif
#ifndef PAD
#define PAD 1
#endif

#define TY (TILE / ROWS) /* work-items along y */

GB_KERNEL void transpose(GB_CONSTANT_ARG T *GB_RESTRICT in, GB_GLOBAL T *GB_RESTRICT out,
                         unsigned long rows, unsigned long cols)
{
    const size_t tx = GB_LOCAL_ID(0), ty = GB_LOCAL_ID(1);
    const size_t x0 = GB_GROUP_ID(0) * TILE, y0 = GB_GROUP_ID(1) * TILE;
#if LOCAL
    GB_LOCAL T tile[TILE][TILE + PAD];
#pragma unroll
    for (size_t r = 0; r < TILE; r += TY)
        tile[ty + r][tx] = in[(y0 + ty + r) * cols + x0 + tx];
    GB_BARRIER();
    /* The transposed tile is written along rows of out: neighbouring work-items write
     * neighbouring elements. */
#pragma unroll
    for (size_t r = 0; r < TILE; r += TY)
        out[(x0 + ty + r) * rows + y0 + tx] = tile[tx][ty + r];
#else
#pragma unroll
    for (size_t r = 0; r < TILE; r += TY)
        out[(x0 + tx) * rows + y0 + ty + r] = in[(y0 + ty + r) * cols + x0 + tx];
#endif
}
