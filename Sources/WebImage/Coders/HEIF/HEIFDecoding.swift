import CHEIF
import Foundation

enum HEIFDecoding {
    /// Reads the container (no pixels) and hands `body` the primary image's handle.
    static func withPrimaryImage<T>(_ data: Data, _ body: (OpaquePointer) throws -> T) throws -> T {
        if data.isEmpty { throw ImageCoderError.emptyData }
        try CodecLibrary.heif.load(for: ImageFormat.detect(data))
        guard let context = heif_context_alloc() else { throw ImageCoderError.outOfMemory }
        defer { heif_context_free(context) }
        return try data.withUnsafeBytes { raw in
            try check(heif_context_read_from_memory_without_copy(context, raw.baseAddress, raw.count, nil), data)
            var handle: OpaquePointer?
            try check(heif_context_get_primary_image_handle(context, &handle), data)
            guard let handle else { throw ImageCoderError.corrupt(ImageFormat.detect(data), reason: "no primary image") }
            defer { heif_image_handle_release(handle) }
            return try body(handle)
        }
    }

    /// The smallest embedded thumbnail at least `size` on both sides, if the file has one.
    static func thumbnail(of handle: OpaquePointer, covering size: PixelSize) -> OpaquePointer? {
        let count = Int(heif_image_handle_get_number_of_thumbnails(handle))
        guard count > 0 else { return nil }
        var ids = [heif_item_id](repeating: 0, count: count)
        _ = heif_image_handle_get_list_of_thumbnail_IDs(handle, &ids, Int32(count))
        var best: (handle: OpaquePointer, pixels: Int)?
        for id in ids {
            var thumbnail: OpaquePointer?
            guard heif_image_handle_get_thumbnail(handle, id, &thumbnail).code == heif_error_Ok, let thumbnail else { continue }
            let (w, h) = (Int(heif_image_handle_get_width(thumbnail)), Int(heif_image_handle_get_height(thumbnail)))
            if w >= size.width, h >= size.height, w * h < (best?.pixels ?? .max) {
                if let previous = best { heif_image_handle_release(previous.handle) }
                best = (thumbnail, w * h)
            } else {
                heif_image_handle_release(thumbnail)
            }
        }
        return best?.handle
    }

    /// `handle` decoded (transforms applied) to RGBA8. The coded image must have the size its
    /// header promised: the pixel limit was checked on that, and a file whose HEVC stream is far
    /// larger than its `ispe` must not get through.
    static func rgba(of handle: OpaquePointer) throws -> Bitmap {
        var image: OpaquePointer?
        let error = heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, nil)
        guard error.code == heif_error_Ok, let image else {
            throw error.code == heif_error_Memory_allocation_error
                ? ImageCoderError.outOfMemory : ImageCoderError.corrupt(.heic, reason: String(cString: error.message))
        }
        defer { heif_image_release(image) }
        let (width, height) = (Int(heif_image_get_width(image, heif_channel_interleaved)), Int(heif_image_get_height(image, heif_channel_interleaved)))
        let promised = (Int(heif_image_handle_get_width(handle)), Int(heif_image_handle_get_height(handle)))
        guard width == promised.0, height == promised.1 else {
            throw ImageCoderError.corrupt(.heic, reason: "the coded image is \(width)x\(height), its header says \(promised.0)x\(promised.1)")
        }
        var stride: Int32 = 0
        guard width > 0, height > 0, let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride) else {
            throw ImageCoderError.corrupt(.heic, reason: "the decoder gave no pixels")
        }
        return Bitmap(width: width, height: height) { buffer in
            for row in 0..<height {
                (buffer.baseAddress! + row * width * 4).update(from: plane + row * Int(stride), count: width * 4)
            }
        }
    }

    private static func check(_ error: heif_error, _ data: Data) throws {
        guard error.code != heif_error_Ok else { return }
        let format = ImageFormat.detect(data)
        switch error.code {
        case heif_error_Memory_allocation_error: throw ImageCoderError.outOfMemory
        case heif_error_Invalid_input where error.subcode == heif_suberror_End_of_data: throw ImageCoderError.truncated(format)
        default: throw ImageCoderError.corrupt(format, reason: String(cString: error.message))
        }
    }
}
