// The libjxl functions WebImage calls, forwarded to the library opened on first use.
#include "wi_forward.h"

#include <jxl/decode.h>
#include <jxl/encode.h>

WI_FORWARD_VOID(WI_CODEC_LIBRARY_JXL, JxlColorEncodingSetToSRGB, (JxlColorEncoding *color_encoding, int is_gray), (color_encoding, is_gray))
WI_FORWARD(WI_CODEC_LIBRARY_JXL, JxlDecoder *, JxlDecoderCreate, (const JxlMemoryManager *memory_manager), (memory_manager))
WI_FORWARD_VOID(WI_CODEC_LIBRARY_JXL, JxlDecoderDestroy, (JxlDecoder *dec), (dec))
WI_FORWARD(WI_CODEC_LIBRARY_JXL, JxlDecoderStatus, JxlDecoderGetBasicInfo, (const JxlDecoder *dec, JxlBasicInfo *info), (dec, info))
WI_FORWARD(WI_CODEC_LIBRARY_JXL, JxlDecoderStatus, JxlDecoderGetColorAsICCProfile, (const JxlDecoder *dec, const JxlPixelFormat *unused_format, JxlColorProfileTarget target, uint8_t *icc_profile, size_t size), (dec, unused_format, target, icc_profile, size))
WI_FORWARD(WI_CODEC_LIBRARY_JXL, JxlDecoderStatus, JxlDecoderGetFrameHeader, (const JxlDecoder *dec, JxlFrameHeader *header), (dec, header))
WI_FORWARD(WI_CODEC_LIBRARY_JXL, JxlDecoderStatus, JxlDecoderGetICCProfileSize, (const JxlDecoder *dec, const JxlPixelFormat *unused_format, JxlColorProfileTarget target, size_t *size), (dec, unused_format, target, size))
WI_FORWARD(WI_CODEC_LIBRARY_JXL, JxlDecoderStatus, JxlDecoderImageOutBufferSize, (const JxlDecoder *dec, const JxlPixelFormat *format, size_t *size), (dec, format, size))
WI_FORWARD(WI_CODEC_LIBRARY_JXL, JxlDecoderStatus, JxlDecoderProcessInput, (JxlDecoder *dec), (dec))
WI_FORWARD(WI_CODEC_LIBRARY_JXL, JxlDecoderStatus, JxlDecoderSetImageOutBuffer, (JxlDecoder *dec, const JxlPixelFormat *format, void *buffer, size_t size), (dec, format, buffer, size))
WI_FORWARD(WI_CODEC_LIBRARY_JXL, JxlDecoderStatus, JxlDecoderSetInput, (JxlDecoder *dec, const uint8_t *data, size_t size), (dec, data, size))
WI_FORWARD(WI_CODEC_LIBRARY_JXL, JxlDecoderStatus, JxlDecoderSetKeepOrientation, (JxlDecoder *dec, int skip_reorientation), (dec, skip_reorientation))
WI_FORWARD(WI_CODEC_LIBRARY_JXL, JxlDecoderStatus, JxlDecoderSetPreferredColorProfile, (JxlDecoder *dec, const JxlColorEncoding *color_encoding), (dec, color_encoding))
WI_FORWARD(WI_CODEC_LIBRARY_JXL, JxlDecoderStatus, JxlDecoderSetUnpremultiplyAlpha, (JxlDecoder *dec, int unpremul_alpha), (dec, unpremul_alpha))
WI_FORWARD(WI_CODEC_LIBRARY_JXL, JxlDecoderStatus, JxlDecoderSubscribeEvents, (JxlDecoder *dec, int events_wanted), (dec, events_wanted))
