// The libavif functions WebImage calls, forwarded to the library opened on first use.
#include "wi_forward.h"

#include <avif/avif.h>

WI_FORWARD_VOID(WI_CODEC_LIBRARY_AVIF, avifColorPrimariesGetValues, (avifColorPrimaries acp, float outPrimaries[8]), (acp, outPrimaries))
WI_FORWARD(WI_CODEC_LIBRARY_AVIF, avifDecoder *, avifDecoderCreate, (void), ())
WI_FORWARD_VOID(WI_CODEC_LIBRARY_AVIF, avifDecoderDestroy, (avifDecoder *decoder), (decoder))
WI_FORWARD(WI_CODEC_LIBRARY_AVIF, avifResult, avifDecoderNextImage, (avifDecoder *decoder), (decoder))
WI_FORWARD(WI_CODEC_LIBRARY_AVIF, avifResult, avifDecoderNthImageMaxExtent, (const avifDecoder *decoder, uint32_t frameIndex, avifExtent *outExtent), (decoder, frameIndex, outExtent))
WI_FORWARD(WI_CODEC_LIBRARY_AVIF, avifResult, avifDecoderParse, (avifDecoder *decoder), (decoder))
WI_FORWARD(WI_CODEC_LIBRARY_AVIF, avifResult, avifDecoderReset, (avifDecoder *decoder), (decoder))
WI_FORWARD(WI_CODEC_LIBRARY_AVIF, avifResult, avifDecoderSetIOMemory, (avifDecoder *decoder, const uint8_t *data, size_t size), (decoder, data, size))
WI_FORWARD(WI_CODEC_LIBRARY_AVIF, avifEncoder *, avifEncoderCreate, (void), ())
WI_FORWARD_VOID(WI_CODEC_LIBRARY_AVIF, avifEncoderDestroy, (avifEncoder *encoder), (encoder))
WI_FORWARD(WI_CODEC_LIBRARY_AVIF, avifResult, avifEncoderWrite, (avifEncoder *encoder, const avifImage *image, avifRWData *output), (encoder, image, output))
WI_FORWARD(WI_CODEC_LIBRARY_AVIF, avifImage *, avifImageCreate, (uint32_t width, uint32_t height, uint32_t depth, avifPixelFormat yuvFormat), (width, height, depth, yuvFormat))
WI_FORWARD_VOID(WI_CODEC_LIBRARY_AVIF, avifImageDestroy, (avifImage *image), (image))
WI_FORWARD(WI_CODEC_LIBRARY_AVIF, avifResult, avifImageRGBToYUV, (avifImage *image, const avifRGBImage *rgb), (image, rgb))
WI_FORWARD_VOID(WI_CODEC_LIBRARY_AVIF, avifImageSetProfileICC, (avifImage *image, const uint8_t *icc, size_t iccSize), (image, icc, iccSize))
WI_FORWARD(WI_CODEC_LIBRARY_AVIF, avifResult, avifImageYUVToRGB, (const avifImage *image, avifRGBImage *rgb), (image, rgb))
WI_FORWARD_VOID(WI_CODEC_LIBRARY_AVIF, avifRGBImageSetDefaults, (avifRGBImage *rgb, const avifImage *image), (rgb, image))
WI_FORWARD_VOID(WI_CODEC_LIBRARY_AVIF, avifRWDataFree, (avifRWData *raw), (raw))
WI_FORWARD(WI_CODEC_LIBRARY_AVIF, const char *, avifResultToString, (avifResult result), (result))
