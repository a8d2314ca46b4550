"""The URLs asked of both servers: every thumbor 7.8 filter with arguments from thumbor's docs,
`fill` in fit-in boxes, `smart` on photos with faces off-centre, `meta/`, plain geometry.
`{o}` is the origin (127.0.0.1:PORT); paths are after /unsafe/."""
from dataclasses import dataclass


@dataclass
class Case:
    path: str          # after /unsafe/, with {o} for the origin
    kind: str = "image"  # image | meta | smart
    source: str = ""   # the source's file name (smart: to locate the crop in it)
    check: str = ""    # an extra: "max_age=N" (Cache-Control), "max_bytes=N" (body size)
    quirk: str = ""    # where thumbor 7.8 is wrong by its own docs: a differing answer "deviates", not FAIL

    def url(self, origin):
        return "/unsafe/" + self.path.replace("{o}", origin)

    @property
    def label(self):
        return "/" + self.path.replace("{o}/", "")


def _image(path, check=""):
    source = path.rsplit("/", 1)[-1]
    return Case(path, "image", source, check)


P, PNG, ALPHA = "{o}/landscape.jpg", "{o}/landscape.png", "{o}/logo.png"
CURVE = ("[(0,0),(40,59),(255,255)],[(32,59),(64,80),(92,111),(128,153),(140,169),(164,201),(192,214),"
         "(224,215),(240,214),(255,212)],[(34,41),(64,51),(92,76),(128,112),(140,124),(164,147),(192,180),"
         "(224,216),(240,236),(255,255)],[(40,46),(64,55),(92,83),(128,127),(140,144),(164,174),(192,197),"
         "(224,199),(240,197),(255,198)]")

FILTERS = [
    _image(f"300x200/filters:autojpg()/{PNG}"),
    _image(f"300x0/filters:background_color(ff0000)/{ALPHA}"),
    _image(f"300x0/filters:background_color(blue):format(jpeg)/{ALPHA}"),
    _image(f"300x200/filters:blur(7)/{P}"),
    _image(f"300x200/filters:blur(4,2)/{P}"),
    _image(f"300x200/filters:brightness(40)/{P}"),
    _image(f"300x200/filters:brightness(-40)/{P}"),
    _image(f"300x200/filters:colorize(40,80,20,ffffff)/{P}"),
    _image(f"300x200/filters:contrast(40)/{P}"),
    _image(f"300x200/filters:contrast(-40)/{P}"),
    _image(f"300x200/filters:convolution(1;2;1;2;4;2;1;2;1,3,true)/{P}"),
    _image(f"300x200/filters:convolution(-1;-1;-1;-1;8;-1;-1;-1;-1,3,false)/{P}"),
    _image(f"300x200/filters:curve({CURVE})/{P}"),
    _image(f"300x200/filters:equalize()/{P}"),
    _image("300x300/filters:extract_focal()/{o}/unsafe/100x100:400x400/{o}/astronaut.jpg"),
    Case("300x300/filters:extract_focal()/{o}/unsafe/1088x0:1600x512/{o}/astronaut-right.jpg", "smart",
         "astronaut-right.jpg",
         quirk="thumbor 7.8 quotes the image URL before extract_focal parses it (`:` becomes %3A), so the crop is "
               "never found and the filter does nothing; by its docs the crop centres on 1088..1600"),
    _image(f"fit-in/300x300/filters:fill(ff0000)/{P}"),
    Case("300x300/smart/filters:focal(100x20:300x200)/{o}/astronaut-right.jpg", "smart", "astronaut-right.jpg"),
    _image(f"300x200/filters:format(webp)/{P}"),
    _image(f"300x200/filters:format(png)/{P}"),
    _image(f"300x200/filters:format(gif)/{P}"),
    _image(f"300x200/filters:format(avif)/{P}"),
    Case(f"300x200/filters:frame({{o}}/frame.png)/{P}", "image", "landscape.jpg",
         quirk="thumbor 7.8's _nine_patch.c casts PyUnicode_AsUTF8String's object to char* for the image mode, so "
               "it reads the nine-patch as 1 byte a pixel (alpha at byte 0): padding (2,0,3,0) where the guides say 9 px a side "
               "(300x200 + 9 each side = 318x218)"),
    _image(f"300x200/filters:grayscale()/{P}"),
    _image(f"300x200/filters:max_age(60)/{P}", "max_age=60"),
    _image(f"600x400/filters:max_bytes(10000)/{P}", "max_bytes=10000"),
    _image(f"fit-in/3000x3000/filters:no_upscale()/{PNG}"),
    _image(f"300x200/filters:noise(40)/{P}"),
    _image(f"300x200/filters:proportion(0.5)/{P}"),
    _image(f"300x200/filters:quality(40)/{P}"),
    _image("300x300/filters:redeye()/{o}/astronaut.jpg"),
    _image(f"300x200/filters:rgb(20,-20,40)/{P}"),
    _image(f"300x200/filters:rotate(90)/{P}"),
    _image(f"300x200/filters:rotate(180)/{P}"),
    _image(f"300x200/filters:round_corner(20,255,255,255)/{P}"),
    _image(f"300x200/filters:round_corner(30|20,0,0,0,1):format(png)/{P}"),
    _image(f"300x200/filters:saturation(0.5)/{P}"),
    _image(f"300x200/filters:saturation(1.8)/{P}"),
    _image(f"300x200/filters:sharpen(2,1.0,true)/{P}"),
    _image(f"300x300/filters:stretch()/{P}"),
    _image(f"300x200/filters:strip_exif()/{P}"),
    _image(f"300x200/filters:strip_icc()/{P}"),
    _image(f"fit-in/3000x3000/filters:upscale()/{PNG}"),
    _image(f"300x200/filters:watermark({{o}}/overlay.png,10,10,0)/{P}"),
    _image(f"300x200/filters:watermark({{o}}/overlay.png,-10,-10,50)/{P}"),
    _image(f"300x200/filters:watermark({{o}}/overlay.png,center,center,30)/{P}"),
    _image(f"600x400/filters:watermark({{o}}/overlay.png,repeat,repeat,40)/{P}"),
    _image(f"300x200/filters:watermark({{o}}/overlay.png,10p,-10p,0,30,none)/{P}"),
]

FILLS = [
    _image(f"fit-in/300x300/filters:fill(00ff00)/{P}"),
    _image(f"fit-in/300x300/filters:fill(blur)/{P}"),
    _image(f"fit-in/300x300/filters:fill(auto)/{P}"),
    _image(f"fit-in/300x300/filters:fill(transparent):format(png)/{P}"),
    _image(f"fit-in/300x300/filters:fill(ff0000,true)/{ALPHA}"),
    _image(f"fit-in/400x200/filters:fill(blue)/{{o}}/astronaut-low.jpg"),
]

SMART = [Case(f"{box}/smart/{{o}}/{name}", "smart", name) for box, name in [
    ("300x300", "astronaut-left.jpg"),
    ("300x300", "astronaut-mid-left.jpg"),
    ("300x300", "astronaut-right.jpg"),
    ("400x200", "astronaut-right.jpg"),
    ("300x100", "astronaut-low.jpg"),
    ("300x300", "camera-right.jpg"),
    ("300x300", "landscape.jpg"),
    ("200x400", "landscape.jpg"),
]]

META = [Case(path, "meta") for path in [
    f"meta/300x200/{P}",
    f"meta/fit-in/300x300/{P}",
    f"meta/-300x200/{P}",
    f"meta/100x100:500x400/200x0/{P}",
    "meta/300x300/smart/{o}/astronaut-mid-left.jpg",
]] + [Case(f"meta/300x200/filters:rotate(90)/{P}", "meta",
            quirk="thumbor 7.8's target is computed from its crop and resize operations only; the image it "
                  "makes is 200x300")] + [Case(f"meta/300x200/{P}?callback=thumbnailReady", "meta", check="jsonp=thumbnailReady")]

GEOMETRY = [_image(path) for path in [
    f"300x200/{P}",
    f"300x0/{P}",
    f"0x300/{P}",
    f"fit-in/300x300/{P}",
    f"fit-in/300x300/{{o}}/astronaut-low.jpg",
    f"-300x200/{P}",
    f"300x-200/{P}",
    f"100x100:500x400/200x0/{P}",
    f"300x300/left/top/{P}",
    f"300x300/right/bottom/{P}",
    f"adaptive-fit-in/200x300/{P}",
    f"full-fit-in/300x300/{P}",
    f"trim/300x0/{ALPHA}",
    f"300x200/{PNG}",
]]

ALL = GEOMETRY + FILTERS + FILLS + SMART + META
