/* enums.c — extents from an enum and a global step count `int steps = 3;` that nothing assigns
 * (a parameter); the kernel reads the globals directly (import_styles.sh). */
#include "dump.h"
// style: enum sizes and a global int size

enum { W = 9, H = 7 };
int steps = 3;
double img[H][W];

static void blur(void)
{
#pragma scop
    for (int t = 0; t < steps; t++)
        for (int y = 1; y < H - 1; y++)
            for (int x = 1; x < W - 1; x++)
                img[y][x] = (img[y - 1][x] + img[y + 1][x] + img[y][x - 1] + img[y][x + 1] + 4 * img[y][x]) / 8;
#pragma endscop
}

int main(void)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            img[y][x] = (x * y) % 3;
    blur();
    DUMP_BEGIN("img");
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) DUMP_VALUE(img[y][x]);
    DUMP_END("img");
    return 0;
}
