// Build and run: cc -O1 -o /tmp/make-cost-fixtures Tools/harness/make-cost-fixtures.c -ljpeg -lpng -ljxl -lavif \
//                 && /tmp/make-cost-fixtures Tests/WebImageTests/Fixtures
// Makes the decode-cost fixtures: a progressive JPEG with one scan per coefficient, and large
// solid-colour PNG, JPEG XL and AVIF files that are tiny on disk.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <png.h>
#include <jxl/encode.h>
#include <avif/avif.h>

static void many_scan_jpeg(const char *path, int w, int h) {
    struct jpeg_compress_struct c; struct jpeg_error_mgr e;
    c.err = jpeg_std_error(&e); jpeg_create_compress(&c);
    FILE *f = fopen(path, "wb"); jpeg_stdio_dest(&c, f);
    c.image_width = w; c.image_height = h; c.input_components = 3; c.in_color_space = JCS_RGB;
    jpeg_set_defaults(&c); jpeg_set_quality(&c, 90, TRUE);
    // DC of all components, then each AC coefficient of each component in its own scan: 190 scans.
    static jpeg_scan_info scans[1 + 63 * 3];
    int n = 0;
    scans[n].comps_in_scan = 3; for (int i = 0; i < 3; i++) scans[n].component_index[i] = i;
    scans[n].Ss = 0; scans[n].Se = 0; scans[n].Ah = 0; scans[n].Al = 0; n++;
    for (int k = 1; k < 64; k++) for (int comp = 0; comp < 3; comp++) {
        scans[n].comps_in_scan = 1; scans[n].component_index[0] = comp;
        scans[n].Ss = k; scans[n].Se = k; scans[n].Ah = 0; scans[n].Al = 0; n++;
    }
    c.scan_info = scans; c.num_scans = n;
    jpeg_start_compress(&c, TRUE);
    unsigned char *row = malloc(w * 3);
    while (c.next_scanline < c.image_height) {
        for (int x = 0; x < w; x++) { row[3*x] = x * 255 / w; row[3*x+1] = c.next_scanline * 255 / h; row[3*x+2] = ((x/8 + c.next_scanline/8) % 2) ? 200 : 40; }
        JSAMPROW r = row; jpeg_write_scanlines(&c, &r, 1);
    }
    jpeg_finish_compress(&c); jpeg_destroy_compress(&c); fclose(f); free(row);
}

static void solid_png(const char *path, int w, int h) {
    FILE *f = fopen(path, "wb");
    png_structp p = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop i = png_create_info_struct(p);
    png_init_io(p, f);
    png_set_compression_level(p, 9);
    png_set_IHDR(p, i, w, h, 1, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(p, i);
    unsigned char *row = calloc(1, (w + 7) / 8);
    for (int y = 0; y < h; y++) png_write_row(p, row);
    png_write_end(p, NULL); png_destroy_write_struct(&p, &i); fclose(f); free(row);
}

static void solid_jxl(const char *path, int w, int h) {
    JxlEncoder *enc = JxlEncoderCreate(NULL);
    JxlBasicInfo info; JxlEncoderInitBasicInfo(&info);
    info.xsize = w; info.ysize = h; info.bits_per_sample = 8; info.num_color_channels = 3; info.uses_original_profile = JXL_TRUE;
    JxlEncoderSetBasicInfo(enc, &info);
    JxlColorEncoding color; JxlColorEncodingSetToSRGB(&color, JXL_FALSE); JxlEncoderSetColorEncoding(enc, &color);
    JxlEncoderFrameSettings *fs = JxlEncoderFrameSettingsCreate(enc, NULL);
    JxlEncoderSetFrameLossless(fs, JXL_TRUE);
    JxlEncoderFrameSettingsSetOption(fs, JXL_ENC_FRAME_SETTING_EFFORT, 1);
    JxlPixelFormat fmt = {3, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
    size_t n = (size_t)w * h * 3; unsigned char *px = malloc(n);
    for (size_t k = 0; k < n; k += 3) { px[k] = 30; px[k+1] = 120; px[k+2] = 200; }
    JxlEncoderAddImageFrame(fs, &fmt, px, n); JxlEncoderCloseInput(enc);
    size_t cap = 1 << 20; unsigned char *out = malloc(cap), *next = out; size_t avail = cap;
    while (JxlEncoderProcessOutput(enc, &next, &avail) == JXL_ENC_NEED_MORE_OUTPUT) {
        size_t used = next - out; cap *= 2; out = realloc(out, cap); next = out + used; avail = cap - used;
    }
    FILE *f = fopen(path, "wb"); fwrite(out, 1, next - out, f); fclose(f);
    JxlEncoderDestroy(enc); free(px); free(out);
}

static void solid_avif(const char *path, int w, int h) {
    avifImage *image = avifImageCreate(w, h, 8, AVIF_PIXEL_FORMAT_YUV420);
    avifRGBImage rgb; avifRGBImageSetDefaults(&rgb, image);
    avifRGBImageAllocatePixels(&rgb);
    for (size_t k = 0; k < (size_t)rgb.rowBytes * h; k += 4) { rgb.pixels[k] = 30; rgb.pixels[k+1] = 120; rgb.pixels[k+2] = 200; rgb.pixels[k+3] = 255; }
    avifImageRGBToYUV(image, &rgb);
    avifEncoder *enc = avifEncoderCreate(); enc->speed = 10; enc->minQuantizer = 40; enc->maxQuantizer = 40;
    avifRWData out = AVIF_DATA_EMPTY;
    if (avifEncoderWrite(enc, image, &out) != AVIF_RESULT_OK) { fprintf(stderr, "avif failed\n"); exit(1); }
    FILE *f = fopen(path, "wb"); fwrite(out.data, 1, out.size, f); fclose(f);
    avifRWDataFree(&out); avifEncoderDestroy(enc); avifRGBImageFreePixels(&rgb); avifImageDestroy(image);
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[4096];
    snprintf(path, sizeof path, "%s/cost-progressive-190scans.jpg", dir); many_scan_jpeg(path, 64, 48);
    snprintf(path, sizeof path, "%s/cost-solid-8000.png", dir); solid_png(path, 8000, 8000);
    snprintf(path, sizeof path, "%s/cost-solid-8000.jxl", dir); solid_jxl(path, 8000, 8000);
    snprintf(path, sizeof path, "%s/cost-solid-1024.jxl", dir); solid_jxl(path, 1024, 1024);
    snprintf(path, sizeof path, "%s/cost-solid-1024.avif", dir); solid_avif(path, 1024, 1024);
    return 0;
}
