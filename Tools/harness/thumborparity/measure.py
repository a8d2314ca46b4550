"""One case asked of both servers and compared: status, format, size, pixels (mean absolute
difference of premultiplied RGBA, of 255), bytes; meta/ JSON fields; smart crop boxes."""
import http.client
import io
import json
import os
import re
import time
from dataclasses import dataclass, field

import numpy as np
from PIL import Image

MAD_LIMIT = 20.0
CROP_LIMIT = 0.10  # of the source's side


@dataclass
class Answer:
    status: int = None
    body: bytes = b""
    headers: dict = field(default_factory=dict)
    error: str = ""
    seconds: float = 0.0

    @property
    def json(self):
        """The meta/ JSON (a JSONP callback unwrapped), or None."""
        text = self.body.decode("utf-8", "replace").strip()
        # thumbor 7.8 writes its callback as a bytes literal: b'name'(…);
        match = re.match(r"^(?:b'[\w.$]+'|[\w.$]+)\((.*)\);?$", text, re.S)
        try:
            return json.loads(match.group(1) if match else text)
        except ValueError:
            return None

    @property
    def image(self):
        try:
            image = Image.open(io.BytesIO(self.body))
            image.load()
            return image
        except Exception:
            return None

    def kind(self):
        """What came back, for the table: `200 JPEG 300x200`, `200 JSON`, `400`, `no answer`."""
        if self.status is None:
            return f"no answer ({self.error})"
        if self.status != 200:
            return str(self.status)
        image = self.image
        if image is not None:
            return f"200 {image.format} {image.width}x{image.height}"
        return "200 JSON" if self.json is not None else f"200 ? ({self.headers.get('content-type', '')})"


def get(port, path, timeout=120):
    """GET `path` exactly as written (thumbor's filter syntax unescaped), no Accept header."""
    started = time.monotonic()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        conn.putrequest("GET", path, skip_accept_encoding=True)
        conn.endheaders()
        response = conn.getresponse()
        answer = Answer(response.status, response.read(), {k.lower(): v for k, v in response.getheaders()})
        conn.close()
    except (OSError, http.client.HTTPException) as error:
        answer = Answer(error=f"{type(error).__name__}: {error}")
    answer.seconds = time.monotonic() - started
    return answer


def premultiplied(image):
    rgba = np.asarray(image.convert("RGBA"), dtype=np.float64)
    rgba[..., :3] *= rgba[..., 3:4] / 255.0
    return rgba


def mad(a, b):
    return float(np.mean(np.abs(premultiplied(a) - premultiplied(b))))


def meta_fields(document):
    """The fields compared of a meta/ answer: source and target sizes, the operations' types."""
    root = (document or {}).get("thumbor", {})
    source, target = root.get("source", {}), root.get("target", {})
    return {
        "source": (source.get("width"), source.get("height")),
        "target": (target.get("width"), target.get("height")),
        "operations": [op.get("type") for op in root.get("operations", [])],
    }


def meta_crop(document):
    """(left, top, right, bottom) of the crop a meta/ answer lists, or None."""
    for op in ((document or {}).get("thumbor", {}).get("operations", [])):
        if op.get("type") == "crop":
            try:
                return tuple(float(op[k]) for k in ("left", "top", "right", "bottom"))
            except (KeyError, TypeError, ValueError):
                return None
    return None


def locate(output, source):
    """The crop box of `source` that `output` was made from, found by template matching: a
    smart crop keeps the output's aspect over one whole side of the source, then scales."""
    import cv2
    src = np.asarray(source.convert("L"), dtype=np.float32)
    out = np.asarray(output.convert("L"), dtype=np.float32)
    (H, W), (h, w) = src.shape, out.shape
    scale = h / H if W / H > w / h else w / W
    scaled = cv2.resize(src, (max(w, round(W * scale)), max(h, round(H * scale))), interpolation=cv2.INTER_AREA)
    result = cv2.matchTemplate(scaled, out, cv2.TM_SQDIFF_NORMED)
    _, _, (x, y), _ = cv2.minMaxLoc(result)
    left, top = x / scale, y / scale
    return (left, top, left + w / scale, top + h / scale)


@dataclass
class Row:
    label: str
    thumbor: str = ""
    webimage: str = ""
    size_ok: str = ""
    mad: str = ""
    ratio: str = ""
    verdict: str = "FAIL"
    notes: list = field(default_factory=list)


def compare(case, origin, thumbor_port, webimage_port, fixtures):
    row = _compare(case, origin, thumbor_port, webimage_port, fixtures)
    if row.verdict == "FAIL" and case.quirk and row.webimage.startswith("200"):
        row.verdict = "deviates"
        row.notes.insert(0, "thumbor 7.8 quirk: " + case.quirk)
    return row


def _compare(case, origin, thumbor_port, webimage_port, fixtures):
    url = case.url(origin)
    t, w = get(thumbor_port, url), get(webimage_port, url)
    row = Row(case.label, t.kind(), w.kind())
    problems = []
    if t.status != w.status:
        problems.append(f"status {w.status} (thumbor {t.status})")
    if t.status != 200 or w.status != 200:
        row.verdict = "FAIL" if problems or t.status is None else "ok (same refusal)"
        row.notes = problems or ["thumbor answers no image here either"]
        return row
    if case.kind == "meta":
        if case.check.startswith("jsonp="):
            name = case.check.split("=", 1)[1]
            if not w.body.lstrip().startswith(name.encode() + b"("):
                problems.append(f"not wrapped in {name}(…) (thumbor's starts {t.body[:20]!r})")
        name = case.path.split("?", 1)[0].rsplit("/", 1)[-1]
        real = Image.open(os.path.join(fixtures, name)).size if os.path.exists(os.path.join(fixtures, name)) else None
        return _compare_meta(row, t, w, problems, real)
    ti, wi = t.image, w.image
    if ti is None or wi is None:
        problems.append("webimage answered no image" if wi is None else "thumbor answered no image")
        row.notes, row.verdict = problems, "FAIL"
        return row
    if ti.format != wi.format:
        problems.append(f"format {wi.format} (thumbor {ti.format})")
    row.ratio = f"{len(w.body) / max(1, len(t.body)):.2f}"
    if ti.size != wi.size:
        row.size_ok = "no"
        problems.append(f"size mismatch: webimage {wi.width}x{wi.height}, thumbor {ti.width}x{ti.height}")
    else:
        row.size_ok = "yes"
        difference = mad(ti, wi)
        row.mad = f"{difference:.1f}"
        if difference >= MAD_LIMIT and case.kind != "smart":
            problems.append(f"MAD {difference:.1f} ≥ {MAD_LIMIT:.0f}")
    if case.kind == "smart":
        problems += _compare_crop(row, case, url, thumbor_port, webimage_port, ti, wi, fixtures)
    problems += _extra_check(case, t, w)
    if case.kind == "image" and "filters:" in url:
        problems += _ignored(url, thumbor_port, webimage_port, ti, wi)
    row.notes = problems + row.notes
    row.verdict = "FAIL" if problems else "ok"
    return row


def _compare_meta(row, t, w, problems, real_source):
    tj, wj = t.json, w.json
    if wj is None:
        problems.append("webimage answered no JSON")
    else:
        tf, wf = meta_fields(tj), meta_fields(wj)
        for key in ("source", "target", "operations"):
            if tf[key] == wf[key]:
                continue
            if key == "source" and real_source is not None and tuple(wf[key]) == tuple(real_source):
                # thumbor 7.8 lists the image's size after its operations as the source's.
                row.notes.append(f"source {wf[key]}: the real source (thumbor 7.8 says {tf[key]}, its size after the operations)")
                continue
            problems.append(f"{key} {wf[key]} (thumbor {tf[key]})")
        tbox, wbox = meta_crop(tj), meta_crop(wj)
        if tbox and wbox and real_source:
            dx = abs((tbox[0] + tbox[2]) - (wbox[0] + wbox[2])) / 2 / real_source[0]
            dy = abs((tbox[1] + tbox[3]) - (wbox[1] + wbox[3])) / 2 / real_source[1]
            row.notes.append(f"crop ({wbox[0]:.0f},{wbox[1]:.0f})-({wbox[2]:.0f},{wbox[3]:.0f}) vs thumbor "
                             f"({tbox[0]:.0f},{tbox[1]:.0f})-({tbox[2]:.0f},{tbox[3]:.0f}): Δ {dx:.1%} x {dy:.1%}")
            if max(dx, dy) > CROP_LIMIT:
                problems.append(f"crop off by more than {CROP_LIMIT:.0%}")
        if "blurhash" in (wj.get("thumbor", {}) if isinstance(wj, dict) else {}):
            row.notes.append("blurhash present")
    row.size_ok = "yes" if wj is not None and meta_fields(tj)["target"] == meta_fields(wj)["target"] else "no"
    row.notes = problems + row.notes
    row.verdict = "FAIL" if problems else "ok"
    return row


def _crop_box(answer_meta, output, source):
    box = meta_crop(answer_meta.json) if answer_meta.status == 200 else None
    return (box, "meta") if box else (locate(output, source), "located")


def _compare_crop(row, case, url, thumbor_port, webimage_port, ti, wi, fixtures):
    source = Image.open(os.path.join(fixtures, case.source))
    meta_url = url.replace("/unsafe/", "/unsafe/meta/", 1)
    tbox, thow = _crop_box(get(thumbor_port, meta_url), ti, source)
    # webimage's image is judged where it is (located); its meta/ crop must agree with it.
    wbox, whow = locate(wi, source), "located"
    wmeta = get(webimage_port, meta_url)
    wlisted = meta_crop(wmeta.json) if wmeta.status == 200 else None
    if wlisted:
        W, H = source.size
        off = max(abs(wlisted[0] - wbox[0]) / W, abs(wlisted[1] - wbox[1]) / H)
        if off > 0.02:
            row.notes.append(f"webimage's meta/ lists its crop at ({wlisted[0]:.0f},{wlisted[1]:.0f}), "
                             f"{off:.1%} away from where its image is")
    W, H = source.size
    dx = abs((tbox[0] + tbox[2]) - (wbox[0] + wbox[2])) / 2 / W
    dy = abs((tbox[1] + tbox[3]) - (wbox[1] + wbox[3])) / 2 / H
    row.notes.append(f"crop at ({wbox[0]:.0f},{wbox[1]:.0f}) [{whow}] vs thumbor ({tbox[0]:.0f},{tbox[1]:.0f}) [{thow}]: "
                     f"Δ {dx:.1%} x {dy:.1%} of the source")
    if thow == "meta":  # the locating fallback checked against thumbor's own listing
        lbox = locate(ti, source)
        off = max(abs(lbox[0] - tbox[0]) / W, abs(lbox[1] - tbox[1]) / H)
        if off > 0.02:
            row.notes.append(f"locating thumbor's output is {off:.1%} off its meta crop")
    return [f"crop off by more than {CROP_LIMIT:.0%}"] if max(dx, dy) > CROP_LIMIT else []


EFFECT_SEEN, EFFECT_NONE = 1.0, 0.2  # MAD from the URL without its filters


def _effect(port, plain_url, filtered):
    """How far a filtered answer is from the same URL without filters (None: not comparable)."""
    plain = get(port, plain_url).image if filtered is not None else None
    if plain is None or plain.size != filtered.size:
        return None
    return mad(plain, filtered)


def _ignored(url, thumbor_port, webimage_port, ti, wi):
    """A filter webimage leaves out must not pass on a small effect: thumbor's answer differs from
    its answer without filters, webimage's does not."""
    plain_url = re.sub(r"filters:.*?\)/", "", url, count=1)
    t_effect = _effect(thumbor_port, plain_url, ti)
    w_effect = _effect(webimage_port, plain_url, wi)
    if t_effect is not None and w_effect is not None and t_effect >= EFFECT_SEEN and w_effect < EFFECT_NONE:
        return [f"filter without effect in webimage (MAD {w_effect:.2f} from the unfiltered URL; thumbor's {t_effect:.1f})"]
    return []


def _extra_check(case, t, w):
    if case.check.startswith("max_age="):
        want = case.check.split("=")[1]
        tc, wc = t.headers.get("cache-control", ""), w.headers.get("cache-control", "")
        if f"max-age={want}" not in wc.replace(" ", ""):
            return [f"Cache-Control {wc!r} (thumbor {tc!r})"]
    if case.check.startswith("max_bytes="):
        limit = int(case.check.split("=")[1])
        if len(w.body) > limit:
            return [f"{len(w.body)} bytes > {limit} (thumbor {len(t.body)})"]
    return []
