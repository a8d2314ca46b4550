extension Image {
    /// What a decoder returns for pixels encoded in `profile`: converted to sRGB (the default),
    /// or, with ``ImageDecodeOptions/convertsToSRGB`` off, as they are with the profile attached.
    /// sRGB profiles, and profiles the pixels cannot be in (grey or CMYK ones, once a decoder has
    /// made RGB of the samples), change nothing. The original bytes still stand for the image.
    func colorManaged(_ profile: ColorProfile?, options: ImageDecodeOptions) -> Image {
        guard let profile else { return self }
        switch ColorTransform.toSRGB(from: profile) {
        case .identity, .unsupported:
            return self
        case .transform(let transform):
            let frames = options.convertsToSRGB ? mappingFrames { transform.convert($0) } ?? self.frames : self.frames
            return Image(frames: frames, loopCount: loopCount, scale: scale, orientation: orientation, format: format,
                         originalData: originalData, hasAlpha: hasAlpha, isIncremental: isIncremental,
                         colorProfile: options.convertsToSRGB ? nil : profile)
        }
    }
}
