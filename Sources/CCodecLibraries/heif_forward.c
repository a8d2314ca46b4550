// The libheif functions WebImage calls, forwarded to the library opened on first use.
#include "wi_forward.h"

#include <libheif/heif.h>

WI_FORWARD(WI_CODEC_LIBRARY_HEIF, struct heif_context *, heif_context_alloc, (void), ())
WI_FORWARD_VOID(WI_CODEC_LIBRARY_HEIF, heif_context_free, (struct heif_context *p0), (p0))
WI_FORWARD(WI_CODEC_LIBRARY_HEIF, struct heif_error, heif_context_get_primary_image_handle, (struct heif_context *ctx, struct heif_image_handle **p1), (ctx, p1))
WI_FORWARD(WI_CODEC_LIBRARY_HEIF, struct heif_error, heif_context_read_from_memory_without_copy, (struct heif_context *p0, const void *mem, size_t size, const struct heif_reading_options *p3), (p0, mem, size, p3))
WI_FORWARD(WI_CODEC_LIBRARY_HEIF, struct heif_error, heif_decode_image, (const struct heif_image_handle *in_handle, struct heif_image **out_img, enum heif_colorspace colorspace, enum heif_chroma chroma, const struct heif_decoding_options *options), (in_handle, out_img, colorspace, chroma, options))
WI_FORWARD(WI_CODEC_LIBRARY_HEIF, int, heif_image_get_height, (const struct heif_image *p0, enum heif_channel channel), (p0, channel))
WI_FORWARD(WI_CODEC_LIBRARY_HEIF, const uint8_t *, heif_image_get_plane_readonly, (const struct heif_image *p0, enum heif_channel channel, int *out_stride), (p0, channel, out_stride))
WI_FORWARD(WI_CODEC_LIBRARY_HEIF, int, heif_image_get_width, (const struct heif_image *p0, enum heif_channel channel), (p0, channel))
WI_FORWARD(WI_CODEC_LIBRARY_HEIF, int, heif_image_handle_get_height, (const struct heif_image_handle *handle), (handle))
WI_FORWARD(WI_CODEC_LIBRARY_HEIF, int, heif_image_handle_get_list_of_thumbnail_IDs, (const struct heif_image_handle *handle, heif_item_id *ids, int count), (handle, ids, count))
WI_FORWARD(WI_CODEC_LIBRARY_HEIF, struct heif_error, heif_image_handle_get_nclx_color_profile, (const struct heif_image_handle *handle, struct heif_color_profile_nclx **out_data), (handle, out_data))
WI_FORWARD(WI_CODEC_LIBRARY_HEIF, int, heif_image_handle_get_number_of_thumbnails, (const struct heif_image_handle *handle), (handle))
WI_FORWARD(WI_CODEC_LIBRARY_HEIF, struct heif_error, heif_image_handle_get_raw_color_profile, (const struct heif_image_handle *handle, void *out_data), (handle, out_data))
WI_FORWARD(WI_CODEC_LIBRARY_HEIF, size_t, heif_image_handle_get_raw_color_profile_size, (const struct heif_image_handle *handle), (handle))
WI_FORWARD(WI_CODEC_LIBRARY_HEIF, struct heif_error, heif_image_handle_get_thumbnail, (const struct heif_image_handle *main_image_handle, heif_item_id thumbnail_id, struct heif_image_handle **out_thumbnail_handle), (main_image_handle, thumbnail_id, out_thumbnail_handle))
WI_FORWARD(WI_CODEC_LIBRARY_HEIF, int, heif_image_handle_get_width, (const struct heif_image_handle *handle), (handle))
WI_FORWARD(WI_CODEC_LIBRARY_HEIF, int, heif_image_handle_has_alpha_channel, (const struct heif_image_handle *p0), (p0))
WI_FORWARD_VOID(WI_CODEC_LIBRARY_HEIF, heif_image_handle_release, (const struct heif_image_handle *p0), (p0))
WI_FORWARD_VOID(WI_CODEC_LIBRARY_HEIF, heif_image_release, (const struct heif_image *p0), (p0))
WI_FORWARD_VOID(WI_CODEC_LIBRARY_HEIF, heif_nclx_color_profile_free, (struct heif_color_profile_nclx *nclx_profile), (nclx_profile))
