"""How far an answer's pixels are from a high-precision resize of its source: Pillow's LANCZOS in
float (mode "F", one channel at a time, nothing rounded to 8 bits on the way) to the answer's own
size, the answer compared to it over RGB as mean absolute error (0-255) and PSNR (dB). The lossy
encode is part of the difference, as it is part of what a client gets."""
import io
import math

import numpy as np
from PIL import Image


class Reference:
    """Reference resizes, made once per source and size."""

    def __init__(self):
        self.made = {}

    def pixels(self, source_path, size):
        key = (source_path, size)
        if key not in self.made:
            channels = Image.open(source_path).convert("RGB").split()
            resized = [np.asarray(c.convert("F").resize(size, Image.LANCZOS)) for c in channels]
            self.made[key] = np.clip(np.stack(resized, axis=-1), 0, 255)
        return self.made[key]

    def difference(self, answer, source_path, fmt):
        """(mean absolute error, PSNR dB) of an answer's bytes, which must be in `fmt`, against its
        source's reference."""
        image = Image.open(io.BytesIO(answer))
        if image.format.lower() != fmt:
            raise RuntimeError(f"{source_path}: asked for {fmt}, answered {image.format}")
        image = image.convert("RGB")
        error = np.asarray(image, dtype=np.float32) - self.pixels(source_path, image.size)
        squared = float(np.mean(error * error))
        return float(np.mean(np.abs(error))), (10 * math.log10(255 * 255 / squared) if squared else math.inf)
