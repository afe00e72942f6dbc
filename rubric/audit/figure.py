"""What the audit's figure shows: a grid of uniform cells coloured by one colour scale (a heatmap) and its
shape, a single flat colour area, or something else.

The bytes were already checked by the upload validator (PNG/JPEG, pixel cap). Decoding is bounded: a
JPEG is decoded at 1/2..1/8 scale (``Image.draft``), anything else is box-reduced (``Image.reduce``) to
at most ``side`` pixels before any analysis. On that small copy (numpy only):

1. neighbouring pixels whose colours differ by at most a tolerance in every channel are connected (2 on a
   clean, lossless image, so that neighbouring cells of close values stay apart; 6 on a noisy one, JPEG or
   photo), and the connected regions are labelled (union by minimum label, with pointer jumping);
2. a region is a *cell* when it is large enough, nearly fills its bounding box (text inside a cell is a
   hole: a cell whose border is whole may have large holes, such as value labels in small cells), has one
   colour (no gradient) and is not the background: near-white, or the region that owns 40 % of the image's
   border whatever its colour (a dark style, a screenshot of a dark editor theme);
3. cells that touch (allowing a gridline between them) form a cluster; the cluster is a *grid* when its
   cell edges fall on evenly spaced lines (a run of equal cells may merge into one region: its length is
   a whole number of steps) and the cells cover its bounding box;
4. a grid is a heatmap only when its cells' colours lie on one colour scale, i.e. along one 1-D curve in
   colour space: a known sequential or diverging colormap (``_COLORMAPS``, sampled from matplotlib and
   seaborn), a linear gradient, two gradients from one white, black or grey centre, or a curve whose
   lightness changes monotonically and faster than its hue. Cells of unrelated hues (coloured tiles, the
   categorical colours of a stacked bar chart) are not a colour scale;
5. with no grid, one large flat area inside the figure is a heatmap of equal values when its rows and
   columns can be counted from value labels centred in its cells or tick labels centred on them; otherwise
   it is reported as what it is, a single flat colour area (``kind == "flat"``), not as "not a heatmap".

A colour bar (a gradient), a photo (no large uniform region), a pie chart (wedges do not fill their box)
and a bar chart (bars of different heights do not tile a rectangle) are therefore not grids.

``FigureReport.seen`` says what was seen, in English and Chinese; what to do is the checklist's text
(``feedback_flat``, ``feedback_not_colour_scale``... in audit.yaml).
"""

from __future__ import annotations

import io
import math
import time
from dataclasses import dataclass, replace

import numpy as np

ANALYSIS_SIDE = 160        # pixels on the long side of the analysed copy
COLOUR_TOL = 6             # max per-channel difference between connected neighbours on a noisy image (0-255)
CLEAN_TOL = 2              # ... on a clean (lossless) image
NOISY_SHARE = 0.1          # neighbour pairs differing by 2..6 / pairs differing by at most 6: above, noisy
MIN_CELL_SHARE = 0.0015    # a cell covers at least this share of the copy...
MIN_CELL_SIDE = 4          # ...and is at least this many pixels wide and high
MIN_PART = 6               # pixels of the smallest part of a cell cut by its value label
LABEL_GAP = 4              # pixels between the parts of a cell above and below its value label
MIN_FILL = 0.8             # pixels of the region / area of its bounding box
MIN_HOLED_FILL = 0.5       # ...or at least this much when the border of the box is whole (text inside)
MIN_BORDER = 0.85          # share of the bounding box's border that belongs to the region
MAX_CELL_STD = 6.0         # colour standard deviation inside a cell (per channel)
BACKGROUND_BORDER = 0.4   # share of the image's border owned by one region: the background, whatever its colour
MIN_COVERAGE = 0.7         # cells' boxes / the cluster's box (gridlines take the rest)
MAX_CELLS = 400            # more uniform patches than this is not a heatmap of a small matrix
SCALE_TOL = 14.0           # RGB distance of a cell's colour from a colour scale's curve
MAX_STEP_RATIO = 5.0       # colour change / lightness change along a curve of monotonic lightness
SLIVER_SHARE = 0.25        # a box under this share of its cluster's median cell is a sliver (of a colour bar), no cell
LUM = np.array([0.299, 0.587, 0.114])

# Colour scales students use, as polylines through RGB anchors (hex), simplified from the 256-colour tables
# of matplotlib and seaborn to within 1.5 RGB units. Reversed maps are the same curves. Cyclic (hsv, twilight)
# and qualitative (tab10, Set1, Paired) maps are left out on purpose: their colours are not one scale.
_COLORMAPS_HEX = {
    "viridis": ("440154 481467 482576 463480 414487 34608d 25848e 1f998a 21a685 29af7f 37b878 60ca60 "
               "90d743 cde11d dae319 e5e419 f1e51d fde725"),
    "plasma": ("0d0887 4b03a1 6f00a8 7b02a8 8707a6 a21d9a bd3786 d9586a eb7655 f79143 fdac33 fdc527 "
               "fad824 f3f027 f1f525 f0f921"),
    "inferno": ("000004 07051b 160b39 230c4c 320a5e 3e0966 4a0c6b 5a116e 6f196e 8a226a a52c60 bd3853 "
               "d24644 e25734 ee6a24 f8890c fb9706 fca309 fcb418 f9c932 f4dd4f f2ea69 f2f27d f5f992 "
               "fcffa4"),
    "magma": ("000004 090720 160f3b 221150 390f6e 440f76 4f127b 621980 792282 a8327d bf3a77 d3436e "
               "e24d66 ec5860 f3655c f8765c fb8761 fd9a6a fec68a fcfdbf"),
    "cividis": "00224e 003171 203a6f 414d6c 5e636f 7d7c78 8f8a78 aea371 c9b965 e7d150 fde334 fee838",
    "Greys": "ffffff 000000",
    "Blues": "f7fbff c6dbef 9dcae1 6aaed6 4292c6 2171b5 08519c 08306b",
    "Reds": "fff5f0 fcbba1 fc9272 fb694a ef3c2c cb181d a50f15 67000d",
    "Greens": "f7fcf5 c8e9c1 a0d99b 73c476 42ab5d 238b45 006d2c 00441b",
    "Oranges": "fff5eb fdd0a2 fdae6a fd8e3d f16913 d94801 7f2704",
    "Purples": "fcfbfd bdbedc 9e9ac8 807dba 6950a3 3f007d",
    "YlOrRd": "ffffcc fed976 feb34d fd8e3c fc4f2a e2191c bd0026 800026",
    "YlOrBr": "ffffe5 fff7bc fec550 fe9829 ec7014 cc4c02 993404 662506",
    "YlGnBu": "ffffd9 edf8b1 80cebb 42b6c4 1d91c0 253494 081d58",
    "YlGn": "ffffe5 f7fcb9 daf0a4 acdd8e 77c679 42ab5d 238443 006837 004529",
    "OrRd": "fff7ec fdd49e fc8c59 ef6548 d7301f b30000 7f0000",
    "PuBu": "fff7fb d0d1e6 a5bddb 3790c0 0570b0 023858",
    "BuPu": "f7fcfd 9ebcda 8c95c6 8c6cb1 88419d 810f7c 4d004b",
    "GnBu": "f7fcf0 ccebc5 a9ddb5 7accc4 4db2d3 0868ac 084081",
    "PuRd": "f7f4f9 e7e1ef d4b9da c995c7 df64af e72989 ce1256 980043 67001f",
    "RdPu": "fff7f3 fcc5c0 fa9eb5 f769a1 dd3597 ae017e 7a0177 49006a",
    "BuGn": "f7fcfd e5f5f9 ccece6 98d8c9 67c2a5 41ae77 238b45 006d2c 00441b",
    "PuBuGn": "fff7fb ece2f0 d0d1e6 a5bddb 66a9cf 3590bf 02818a 016c59 014636",
    "hot": "0b0000 ff0000 fffe00 ffffff",
    "afmhot": "000000 800000 fe7e00 fffe7f ffffff",
    "gist_heat": "000000 be0000 ff5500 ff7f00 ff8103 ffffff",
    "copper": "000000 fea166 ffc77f",
    "bone": "000000 515171 a6c6c6 ffffff",
    "pink": "1e0000 321a1a 402525 c27e7e d2b296 e8e8b4 ffffff",
    "coolwarm": ("3b4cc0 5673e0 6b8df0 82a6fb 97b8ff aec9fc c3d5f4 ccd9ed dcdddd e4d9d2 f1cdba f7bca1 "
               "f7a688 f18d6f de614d cb3e38 c0282f b40426"),
    "bwr": "0000ff fefeff ff0000",
    "seismic": "00004c 0101ff fdfdff fffdfd ff0101 800000",
    "RdBu": "67001f b1182b d6604d f4a683 fddbc7 f7f6f6 d1e5f0 93c6de 4393c3 2267ac 053061",
    "RdYlBu": "a50026 d62f27 f46d43 fdaf62 fee090 feffc0 e0f3f8 acdae9 74add1 4676b5 313695",
    "RdYlGn": "a50026 d62f27 f46d43 fdaf62 fee08b fffebe d9ef8b a7d96b 66bd63 1b9950 006837",
    "Spectral": "9e0142 d43d4f f46d43 fdaf62 fee08b ffffbe e6f598 aadca4 66c2a5 3389bd 3387bc 5e4fa2",
    "PiYG": "8e0152 c51d7e de77ae f1b7da fde0ef f7f7f7 e6f5d0 b9e187 7fbc41 4c9121 276419",
    "PRGn": "40004b 772b84 9970ab c3a6cf e7d4e8 f6f7f6 d9f0d3 a7dba1 5aae61 1c7938 00441b",
    "BrBG": "543005 8b500a bf812d dfc37e f6e8c3 f4f5f5 c7eae5 81cec2 35978f 02675f 003c30",
    "PuOr": "7f3b08 b45906 e08214 fdb965 fee0b6 f6f6f7 d8daeb b1aad1 8073ac 552889 2d004b",
    "RdGy": "67001f b1182b d6604d f4a683 fddbc7 fefefe 1a1a1a",
    "jet": "000080 0000ff 00d8ff 00e4f8 16ffe1 eeff09 f8f500 ffea00 ff1300 e80000 800000",
    "turbo": ("30123b 3f3b97 455ed3 4771e9 4682f8 448ffe 3d9efe 2eb4f2 1ecbda 18ddc2 1de7b2 35f394 "
               "59fb73 84ff51 a7fc3a b9f635 cdec34 e3db38 f4c73a faba39 fea933 fb8122 f56918 ec530f "
               "e2430a d43305 c32503 ac1701 950d01 7a0403"),
    "rainbow": ("8000ff 5c38fd 3c68f9 1e91f3 00b5eb 1fd3e1 3dead5 58f8c9 74feba 96fca7 b9ef92 dbd87b "
               "feb562 ff703a ff0000"),
    "cubehelix": ("000000 0e050f 160d21 1a1733 1a2441 18324b 15444f 16534c 1b6145 266c3c 387434 4e792f "
               "667a30 7e7a36 937a40 a97951 b97964 c57a76 ce7d8c d381a0 d588b5 d391c9 cf9ddb caabe8 "
               "c5baf0 c2c6f3 c2d4f3 c5dff2 cce9ef d7f1ef e5f7f1 f2fbf6 ffffff"),
    "terrain": "333399 0098fe 01cc66 fdff99 805c54 ffffff",
    "ocean": "008000 000055 0080aa ffffff",
    "gnuplot": ("000000 100006 17000d 2a002c 3e005c 6a01e1 7603f9 7c03fe 8104ff 8706fb 8d07ef 990cc4 "
               "a61376 b52000 cb4000 de6f00 efad00 ffff00"),
    "gnuplot2": "000000 0100ff 8700ff fe4cb3 fffe01 ffffff",
    "CMRmap": "000000 262680 4d26bf 9a337e ff4126 e67f00 e6bf19 e6e57f ffffff",
    "Wistia": "e4ff7a ffe81a ffbd00 fc7f00",
    "rocket": ("03051a 241432 451c47 641f54 861e5b ab185a b91657 c41753 d62449 e73d3f ec4c3e f05e42 "
               "f3714d f58860 f6a077 f6b691 faebdd"),
    "mako": ("0b0405 251729 342548 3f366f 40468a 3c5397 37669e 3493a8 39abac 44bcad 52c7ad 65d0ad "
               "7fd7af 99ddb6 aee3c0 def5e5"),
    "flare": "edb081 e98868 e5735f e05f5c d64f5f cc4663 c04068 a8396e 903371 722c6e 4b2362",
    "crest": "a5cd90 73b590 5ba790 46968f 21728b 1d6a8a 1d6087 27477d 2c3172",
    "vlag": "2369bd 5380bc 859ec4 b7c2d5 faf5f5 f9eeed c57674 a9373b",
    "icefire": ("bde7db 8ac4d0 55a3cd 3a89cf 3781d0 377ad0 3d6ecc 4560c1 4956b3 494da1 3f3d74 222129 "
               "1f1e1e 2d1f21 752c3e 902e44 a52f44 b63441 c73d3b d54b35 e25f33 ea7238 ef8748 f49d63 "
               "ffd4ac"),
}


def _polylines() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All colormaps' segments: start points, directions and, per segment, the index of its colormap."""
    starts, dirs, owner = [], [], []
    for i, text in enumerate(_COLORMAPS_HEX.values()):
        pts = np.array([[int(h[k:k + 2], 16) for k in (0, 2, 4)] for h in text.split()], dtype=np.float64)
        starts.append(pts[:-1])
        dirs.append(pts[1:] - pts[:-1])
        owner.append(np.full(len(pts) - 1, i))
    return np.concatenate(starts), np.concatenate(dirs), np.concatenate(owner)


_SEG_START, _SEG_DIR, _SEG_OWNER = _polylines()
_SEG_LEN2 = np.maximum((_SEG_DIR ** 2).sum(axis=1), 1e-9)
# where each segment starts along its colormap, as a share of the colormap's length (round 26: a cell's position)
_SEG_LEN = np.sqrt(_SEG_LEN2)
_SEG_FROM = np.zeros(len(_SEG_LEN))
_SEG_SHARE = np.zeros(len(_SEG_LEN))
for _k in np.unique(_SEG_OWNER):
    _mine = np.flatnonzero(_SEG_OWNER == _k)
    _total = _SEG_LEN[_mine].sum()
    _SEG_FROM[_mine] = np.r_[0.0, np.cumsum(_SEG_LEN[_mine])[:-1]] / _total
    _SEG_SHARE[_mine] = _SEG_LEN[_mine] / _total


def scale_positions(colours: np.ndarray) -> tuple[float, ...]:
    """Where each colour lies along the one known colormap they all lie on (0-255, from its first colour), or ()
    when no known colormap holds them all. A value maps to a position monotonically whatever the colormap
    (sequential, diverging or rainbow) and its normalisation; a reversed colormap reverses the order."""
    c = np.asarray(colours, dtype=np.float64).reshape(-1, 3)
    if not len(c):
        return ()
    rel = c[:, None, :] - _SEG_START[None]
    t = np.clip((rel * _SEG_DIR[None]).sum(axis=2) / _SEG_LEN2, 0.0, 1.0)
    dist = np.linalg.norm(rel - t[..., None] * _SEG_DIR[None], axis=2)           # colours x segments
    best, fit = None, SCALE_TOL
    for k in np.unique(_SEG_OWNER):
        mine = np.flatnonzero(_SEG_OWNER == k)
        worst = dist[:, mine].min(axis=1).max()
        if worst <= fit:
            best, fit = mine, worst
    if best is None:
        return ()
    seg = best[dist[:, best].argmin(axis=1)]
    at = _SEG_FROM[seg] + t[np.arange(len(c)), seg] * _SEG_SHARE[seg]
    return tuple(float(round(x * 255, 1)) for x in at)


@dataclass(frozen=True)
class FigureReport:
    """``kind`` is "grid" (with ``rows`` x ``cols``), "flat" (a single flat colour area whose rows and
    columns cannot be counted), "blank", "not_heatmap" or "unreadable". ``reason`` refines it: "uniform" for
    a grid whose cells all have one colour (counted from its labels), "not_colour_scale" for a grid whose
    colours are not one colour scale (``rows`` x ``cols`` is then the grid that was seen), "too_small" for an image
    under SMALL_SIDE pixels a side in which no grid was found (``width`` x ``height``: its size)."""

    kind: str
    rows: int = 0
    cols: int = 0
    cells: int = 0
    ms: float = 0.0
    reason: str = ""
    # the cells' lightness (0-255), row by row, when every cell of the grid was seen: with the weights the
    # figure plots, it says which end of the colour scale is low (grade._low_end; reversed maps share a curve)
    lightness: tuple[float, ...] = ()
    # the cells' positions along the known colormap they lie on (scale_positions), row by row, when every cell was
    # seen and one known colormap holds them all: with the weights, whether the figure plots them (round 26)
    positions: tuple[float, ...] = ()
    # the image's own size in pixels, given with reason "too_small" (round 29)
    width: int = 0
    height: int = 0
    # round 33: the quality (1-100) a JPEG was saved at, read from its quantisation tables, when it is at most
    # LOW_JPEG_QUALITY: compression that strong blurs the cells' edges and shifts their colours (0: not such a JPEG)
    jpeg_quality: int = 0

    @property
    def shape(self) -> tuple[int, int] | None:
        return (self.rows, self.cols) if self.kind == "grid" else None

    @property
    def seen(self) -> dict[str, str]:
        """What the figure shows, in a few words (English and Chinese)."""
        r, c = self.rows, self.cols
        if self.kind == "grid" and self.reason == "uniform":
            return {"en": f"a {r}×{c} grid whose cells all have one colour (equal weights)",
                    "zh": f"{r}×{c} 的格子，所有格子同一颜色（权重相等）"}
        if self.kind == "grid":
            article = "an" if str(r).startswith("8") or r in (11, 18) else "a"
            return {"en": f"{article} {r}×{c} grid", "zh": f"{r}×{c} 的格子"}
        if self.kind == "flat":
            return {"en": "a single flat colour area whose rows and columns cannot be counted",
                    "zh": "一整块单一颜色的区域，看不出有几行几列"}
        if self.reason == "not_colour_scale":
            return {"en": f"a {r}×{c} grid of cells of unrelated colours that are not one colour scale, "
                          "so not a heatmap",
                    "zh": f"{r}×{c} 的色块，但颜色互不相关、不在同一条色阶上，所以不是 heatmap"}
        if self.reason == "too_small":
            return {"en": f"an image of only {self.width}×{self.height} pixels in which no grid of cells was found",
                    "zh": f"只有 {self.width}×{self.height} 像素的图，其中没有找到格子"}
        if self.kind == "blank":
            return {"en": "a blank image", "zh": "空白图"}
        if self.kind == "unreadable":
            return {"en": "an image that could not be read", "zh": "无法读取的图"}
        return {"en": "not a heatmap", "zh": "不是 heatmap"}


def to_8bit(im):
    """A 16-bit or 32-bit greyscale image (modes I;16*, I, F: a 16-bit PNG) scaled to 8-bit "L".

    Pillow's own ``convert("L")`` clips such values at 255 instead of scaling them, so a 16-bit heatmap
    (values up to 65535) becomes a uniform white image. The values are scaled by the bit depth (65535
    for a 16-bit file), or by their maximum when they exceed it; anything else is returned unchanged."""
    from PIL import Image

    if not (im.mode.startswith("I") or im.mode == "F"):
        return im
    a = np.asarray(im, dtype=np.float64)
    if a.ndim != 2 or a.size == 0:
        return im.convert("L")
    top = max(float(a.max()), 0.0)
    full = 65535.0 if im.mode.startswith("I;16") or top <= 65535.0 else top
    if im.mode == "F" and top <= 1.0:
        full = 1.0
    return Image.fromarray(np.clip(a / full * 255.0, 0, 255).round().astype(np.uint8), "L")


# EXIF orientation (tag 0x0112) -> the transposition that shows the image upright, as ImageOps.exif_transpose.
_EXIF_ORIENTATION = 0x0112
_UPRIGHT = {2: "FLIP_LEFT_RIGHT", 3: "ROTATE_180", 4: "FLIP_TOP_BOTTOM", 5: "TRANSPOSE", 6: "ROTATE_270",
            7: "TRANSVERSE", 8: "ROTATE_90"}


def _orientation(im) -> int:
    """The EXIF orientation of ``im`` (1 when absent or unreadable: metadata is best effort)."""
    try:
        value = im.getexif().get(_EXIF_ORIENTATION, 1)
    except Exception:  # noqa: BLE001 - a damaged EXIF block leaves the pixels as stored
        return 1
    return value if isinstance(value, int) else 1


def _reduced(im, side: int):
    """``im`` box-reduced by a whole factor to at most ``side`` pixels a side (itself when it fits)."""
    factor = max(1, math.ceil(max(im.size) / side))
    return im.reduce(factor) if factor > 1 else im


def _decode(data: bytes, side: int) -> np.ndarray:
    from PIL import Image

    im = Image.open(io.BytesIO(data))
    # A phone photo or a camera-app export stores its pixels sideways with an EXIF orientation; the
    # browser (the result page) and every viewer show it upright, and the student describes what they
    # see: a 2x3 heatmap stored as 3x2 was read as "a 3x2 grid", the shape the audit does not have.
    orientation = _orientation(im)
    if im.format == "JPEG":
        im.draft("RGB", (2 * side, 2 * side))     # DCT scaling: never decodes the full-size image
    if im.mode.startswith("I") or im.mode == "F":
        # 16/32-bit grey (a 16-bit PNG) is reduced before to_8bit scales it in float64: a 4096x4096 one
        # cost the worker 0.9 s at every grading. Pillow reduces "I" and "F", not "I;16".
        im = _reduced(im.convert("I") if im.mode.startswith("I;16") else im, side)
    im = to_8bit(im)
    if im.mode not in ("RGB", "RGBA", "L", "LA"):
        im = im.convert("RGBA")
    im = _reduced(im, side)
    if orientation in _UPRIGHT:                   # on the reduced copy: a transposition commutes with it
        im = im.transpose(getattr(Image.Transpose, _UPRIGHT[orientation]))
    rgba = np.asarray(im.convert("RGBA"), dtype=np.float32)
    alpha = rgba[..., 3:4] / 255.0
    return (rgba[..., :3] * alpha + 255.0 * (1.0 - alpha)).round().astype(np.int16)   # flattened onto white


def _label(same_x: np.ndarray, same_y: np.ndarray, h: int, w: int) -> np.ndarray:
    """Connected components of the pixel grid, edges given by the two boolean maps. Returns labels 0..K-1."""
    idx = np.arange(h * w).reshape(h, w)
    a = np.concatenate([idx[:, :-1][same_x], idx[:-1, :][same_y]])
    b = np.concatenate([idx[:, 1:][same_x], idx[1:, :][same_y]])
    lab = np.arange(h * w)
    while True:
        la, lb = lab[a], lab[b]
        diff = la != lb
        if not diff.any():
            break
        la, lb = la[diff], lb[diff]
        low = np.minimum(la, lb)
        np.minimum.at(lab, la, low)
        np.minimum.at(lab, lb, low)
        while True:                                   # pointer jumping: every pixel points at its root
            nxt = lab[lab]
            if np.array_equal(nxt, lab):
                break
            lab = nxt
    roots = lab == np.arange(h * w)
    return (np.cumsum(roots) - 1)[lab]


def _light_units(group: list[tuple[int, int, int, int]], light: list[tuple[int, int, int, int]],
                 gap: float) -> list[tuple[tuple[int, int, int, int], int]]:
    """The light candidates on the lattice of ``group``'s cells, cut into cells of its size, as (cell box, index into
    ``light``): a masked column of equal cells is one region of two or more cells."""
    cw = sorted(c[2] - c[0] for c in group)[len(group) // 2]
    ch = sorted(c[3] - c[1] for c in group)[len(group) // 2]
    ox, oy = min(c[0] for c in group), min(c[1] for c in group)

    def steps(v: float, origin: float, step: int) -> int | None:
        k = round((v - origin) / step)
        return k if abs(v - origin - k * step) <= gap else None

    units: list[tuple[tuple[int, int, int, int], int]] = []
    for j, (ax0, ay0, ax1, ay1) in enumerate(light):
        kx, ky = steps(ax0, ox, cw), steps(ay0, oy, ch)
        nx, ny = steps(ax1 - ax0, 0, cw), steps(ay1 - ay0, 0, ch)
        if kx is None or ky is None or not nx or not ny or nx * ny > 64:
            continue
        units += [((ax0 + a * cw, ay0 + b * ch, ax0 + (a + 1) * cw, ay0 + (b + 1) * ch), j)
                  for a in range(nx) for b in range(ny)]
    return units


def _page_gaps(cells: list[tuple[int, int, int, int]], gap: float, page: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Cells of the page's white between two cells of one row (or column) of the grid: the gap between them is a whole
    number of cells wide and every pixel of it is page white (``page``), with no cell in between."""
    if len(cells) < 2 or len(cells) > 64:
        return []
    cw = sorted(c[2] - c[0] for c in cells)[len(cells) // 2]
    ch = sorted(c[3] - c[1] for c in cells)[len(cells) // 2]
    out: set[tuple[int, int, int, int]] = set()
    for a in cells:
        for b in cells:
            for lo, hi, size, across in ((0, 2, cw, (1, 3)), (1, 3, ch, (0, 2))):
                i, j = across
                if abs(a[i] - b[i]) > gap or abs(a[j] - b[j]) > gap or b[lo] <= a[hi]:
                    continue
                span = b[lo] - a[hi]
                n = round(span / size)
                if not 1 <= n <= 8 or abs(span - n * size) > gap or any(
                        c[lo] >= a[hi] - gap and c[hi] <= b[lo] + gap and abs(c[i] - a[i]) <= gap for c in cells):
                    continue
                step = span / n
                for k in range(n):
                    p0, p1 = round(a[hi] + k * step), round(a[hi] + (k + 1) * step)
                    box = (p0, a[1], p1, a[3]) if lo == 0 else (a[0], p0, a[2], p1)
                    # (its rim may blend with the cells beside it in the reduced copy)
                    if page[box[1] + 1:box[3] - 1, box[0] + 1:box[2] - 1].all():
                        out.add(box)
    return sorted(out)


def _light_cells(group: list[tuple[int, int, int, int]], light: list[tuple[int, int, int, int]],
                 gap: float) -> list[tuple[tuple[int, int, int, int], int]]:
    """The light candidates that continue the grid's rows and columns, as (cell box, index into ``light``): a
    candidate of a whole number of the grid's cells (a masked column of equal cells is one region) on its lattice,
    within a gridline of the grid or of a cell taken, until none is added."""
    if not light:
        return []
    units = _light_units(group, light, gap)
    taken: list[tuple[tuple[int, int, int, int], int]] = []
    boxes = list(group)
    grew = True
    while grew:
        grew = False
        for u in units:
            a = u[0]
            if u not in taken and any(a[0] - gap <= b[2] and b[0] - gap <= a[2] and a[1] - gap <= b[3]
                                      and b[1] - gap <= a[3] for b in boxes):
                taken.append(u)
                boxes.append(a)
                grew = True
    return taken


def _even_steps(points: list[float], tol: float) -> int | None:
    """Number of equal steps between the lines the points cluster on (points within ``tol`` of the previous one join
    its line): each gap between neighbouring lines a whole number of the smallest, to within a fifth of it; None if
    they are not so spaced or the smallest gap is under MIN_CELL_SIDE."""
    pts: list[list[float]] = []
    for e in sorted(points):
        if pts and e - pts[-1][-1] <= tol:
            pts[-1].append(e)
        else:
            pts.append([e])
    lines = [sum(p) / len(p) for p in pts]
    gaps = [b - a for a, b in zip(lines, lines[1:], strict=False)]
    if not gaps:
        return None
    base = min(gaps)
    if base < MIN_CELL_SIDE:
        return None
    n = 0
    for g in gaps:
        k = round(g / base)
        if k < 1 or abs(g - k * base) > 0.2 * base:
            return None
        n += k
    return n


def _drawn(colours: list) -> np.ndarray:
    """The cells' colours without the page-white ones (when some are not): a white cell joins a grid as the low end of
    a light colour map (Blues' 0) or as a masked key left undrawn (a NaN shows the page), and neither is a colour the
    others' scale must reach (round 31: a blank first row under viridis cells, enclosed by gridlines, left 2x3 of 3x3)."""
    c = np.array(colours, dtype=np.float64).reshape(-1, 3)
    white = (c @ LUM > 235) & (c.max(axis=1) - c.min(axis=1) < 20)
    return c[~white] if (~white).any() else c


def _centre_steps(spans: list[tuple[int, int]], tol: float) -> int | None:
    """Number of cells along one axis from the centres of the cells' spans (None if not evenly spaced): on a noisy
    image, where the cells' edges are eaten unevenly (ringing is stronger against a frame or the page than between two
    cells), their centres still fall on the lattice. A span of a whole number of the narrowest span's width (a run of
    equal cells merged) stands for that many cells."""
    unit = min(b - a for a, b in spans)
    if unit < MIN_CELL_SIDE:
        return None
    centres: list[float] = []
    for a, b in spans:
        n = max(1, round((b - a) / unit))
        centres += [a + (j + 0.5) * (b - a) / n for j in range(n)]
    steps = _even_steps(centres, tol)
    return steps + 1 if steps else None


def _is_colour_scale(colours: np.ndarray, tol: float = SCALE_TOL) -> bool:
    """Whether the cells' colours (n x 3, RGB) lie along one sequential or diverging colour scale, each within ``tol``
    of it (wider on a low-quality JPEG, whose colours are quantised)."""
    c = colours.astype(np.float64)
    if len(c) < 2 or np.abs(c - c.mean(axis=0)).max() <= tol:
        return True
    # a known colormap: every colour near one of its segments
    rel = c[:, None, :] - _SEG_START[None]
    t = np.clip((rel * _SEG_DIR[None]).sum(axis=2) / _SEG_LEN2, 0.0, 1.0)
    dist = np.linalg.norm(rel - t[..., None] * _SEG_DIR[None], axis=2)           # colours x segments
    bounds = np.flatnonzero(np.r_[True, _SEG_OWNER[1:] != _SEG_OWNER[:-1]])
    if (np.minimum.reduceat(dist, bounds, axis=1).max(axis=0) <= tol).any():
        return True
    # one or two linear gradients from a white, black or neutral centre (a linear map is one through an end)
    light = c[np.argmax(c @ LUM)]
    centres = [np.full(3, 255.0), np.zeros(3)]
    if light.max() - light.min() < 30:
        centres.append(light)
    ends = [c[np.argmin(c @ LUM)]]
    for centre in centres + ends:
        left = c
        for _ in range(2):
            d = left - centre
            far = d[np.argmax((d ** 2).sum(axis=1))]
            if (far ** 2).sum() <= tol ** 2:
                left = left[:0]
                break
            u = far / np.linalg.norm(far)
            off = np.linalg.norm(d - (d @ u)[:, None] * u, axis=1)
            left = left[(off > tol) | (d @ u < -tol)]
            if not len(left):
                break
        if not len(left):
            return True
    # a curve of monotonic lightness whose colour changes at most MAX_STEP_RATIO times as fast as lightness
    order = np.argsort(c @ LUM)
    pts = [c[order[0]]]
    for p in c[order[1:]]:
        if np.linalg.norm(p - pts[-1]) > tol:
            pts.append(p)
    steps = np.diff(np.array(pts), axis=0)
    if len(steps) == 0:
        return True
    norms = np.linalg.norm(steps, axis=1)
    dl = steps @ LUM
    if np.any((norms > 3 * tol) & (norms > MAX_STEP_RATIO * dl)):
        return False
    unit = steps / norms[:, None]
    return bool(np.all((unit[1:] * unit[:-1]).sum(axis=1) > 0.0))


def _noisy(px: np.ndarray) -> bool:
    """Whether flat areas carry noise (JPEG artefacts, a photo): many neighbours differ by a little."""
    d = np.abs(px[:, 1:] - px[:, :-1]).max(axis=2)
    small = int((d <= COLOUR_TOL).sum())
    return small > 0 and int(((d >= CLEAN_TOL) & (d <= COLOUR_TOL)).sum()) > NOISY_SHARE * small


def _lattice(profile: np.ndarray) -> int:
    """Number n of ink clusters in ``profile`` centred at (i + 0.5) / n of its length (0 if not so)."""
    idx = np.flatnonzero(profile)
    if not len(idx):
        return 0
    runs: list[list[int]] = [[int(idx[0]), int(idx[0])]]
    for i in idx[1:]:
        if i - runs[-1][1] <= 2:
            runs[-1][1] = int(i)
        else:
            runs.append([int(i), int(i)])
    n, length = len(runs), len(profile)
    step = length / n
    for i, (a, b) in enumerate(runs):
        if b - a + 1 > 0.85 * step or abs((a + b + 1) / 2 - (i + 0.5) * step) > max(1.5, 0.15 * step):
            return 0
    return n


def _counted(ink: np.ndarray, region: np.ndarray, box: tuple[int, int, int, int]) -> tuple[int, int]:
    """Rows and columns of a flat area, counted from value labels inside it (holes) or, failing that, from
    tick labels beside it (the block of ink nearest to its left / bottom / top edge, within a few pixels)."""
    x0, y0, x1, y1 = box
    h, w = ink.shape
    holes = ~region[y0:y1, x0:x1]
    holes[[0, -1], :] = False                     # the antialiased rim is not a label
    holes[:, [0, -1]] = False
    rows, cols = _lattice(holes.any(axis=1)), _lattice(holes.any(axis=0))
    if rows and cols and rows * cols >= 2:
        return rows, cols
    reach = max(3, (x1 - x0) // 10)

    def block(lines: list[np.ndarray]) -> np.ndarray | None:
        """The first block of consecutive lines with ink, starting within 3 lines of the edge."""
        got: list[np.ndarray] = []
        for i, line in enumerate(lines):
            if line.any():
                got.append(line)
            elif got or i >= 3:
                break
        return np.any(got, axis=0) if got else None

    left = block([ink[y0:y1, x] for x in range(x0 - 2, max(-1, x0 - 2 - reach), -1)])
    below = block([ink[y, x0:x1] for y in range(y1 + 1, min(h, y1 + 1 + reach))])
    above = block([ink[y, x0:x1] for y in range(y0 - 2, max(-1, y0 - 2 - reach), -1)])
    t_rows = _lattice(left) if left is not None else 0
    t_cols = max((_lattice(b) for b in (below, above) if b is not None), default=0)
    rows, cols = rows or t_rows, cols or t_cols
    return (rows, cols) if rows and cols and rows * cols >= 2 else (0, 0)


def _background(lab: np.ndarray, k: int) -> int | None:
    """The figure's background: the region that owns at least BACKGROUND_BORDER of the image's border.

    The background of a figure is whatever colour it was saved or captured on: white for matplotlib's
    default style, near-black for ``plt.style.use('dark_background')``, dark grey for a screenshot of a
    dark editor theme. It surrounds the plot, so one connected region owns most of the image's border;
    cells of a heatmap cropped to its edges own a share each (a corner cell of a 2x3 grid 20 %, of a
    2x2 grid 25 %), never 40 %. The background is not a cell whatever its colour."""
    edge = np.concatenate([lab[0], lab[-1], lab[1:-1, 0], lab[1:-1, -1]])
    owned = np.bincount(edge, minlength=k)
    top = int(np.argmax(owned))
    return top if owned[top] >= BACKGROUND_BORDER * len(edge) else None


def _row_major_lightness(boxes: list[tuple[int, int, int, int]], lightness: list[float], rows: int,
                         cols: int) -> tuple[float, ...]:
    """The cells' lightness in the order of the matrix they draw (row by row), or () unless there is one cell
    per entry: top to bottom by centre, then left to right within each row."""
    if len(boxes) != rows * cols:
        return ()
    order = sorted(range(len(boxes)), key=lambda i: boxes[i][1] + boxes[i][3])
    out: list[float] = []
    for r in range(rows):
        row = sorted(order[r * cols:(r + 1) * cols], key=lambda i: boxes[i][0] + boxes[i][2])
        out.extend(round(lightness[i], 1) for i in row)
    return tuple(out)


def analyse_figure(data: bytes, side: int = ANALYSIS_SIDE) -> FigureReport:
    """What the figure is (see :class:`FigureReport`), from a copy of it at most ``side`` pixels a side. A figure that
    fills a small part of a larger image (a screenshot of a notebook or a slide: round 29, a 2x3 heatmap filling a
    ninth of a screenshot was "not a heatmap") is analysed again, cropped to what differs from the image's border."""
    t0 = time.perf_counter()
    try:
        px = _decode(data, side)
    except Exception:  # noqa: BLE001 - validated upstream; anything Pillow still refuses is "unreadable"
        return _analyse(None, False, t0)
    jpeg = bytes(data[:2]) == b"\xff\xd8"                # lossy: flat areas carry small differences
    dc = _dc_step(data) if jpeg else 0.0
    quality = jpeg_quality(dc)
    report = _read(data, px, jpeg, t0, _coarseness(dc), side)
    return replace(report, jpeg_quality=quality) if 0 < quality <= LOW_JPEG_QUALITY else report


def _read(data: bytes, px: np.ndarray, jpeg: bool, t0: float, coarse: float, side: int) -> FigureReport:
    """:func:`analyse_figure` of the decoded pixels ``px``: the whole image, then its content cropped."""
    size = _size(data) if jpeg else None
    report = _analyse(px, jpeg, t0, coarse, _mcu(size, px.shape[1]))
    if report.kind != "not_heatmap" or report.rows:
        return report
    if max(px.shape[:2]) < SMALL_SIDE and (size or _size(data)) == (px.shape[1], px.shape[0]):
        # what was seen, not a guess at what it is: an image this small is not reduced for the analysis (its own
        # size), and its cells, blurred by value labels and resampling, are a few pixels each (round 29: a 60x34
        # heatmap was told it is "a photo, a chart or a drawing")
        return replace(report, reason="too_small", width=px.shape[1], height=px.shape[0])
    box = _content_box(px, COLOUR_TOL if jpeg else CLEAN_TOL)
    if box is None:
        return report
    x0, y0, x1, y1 = box
    h, w = px.shape[:2]
    share = max(x1 - x0, y1 - y0) / max(h, w)
    try:
        # decoded again so that the content, not the whole screenshot, is about ``side`` pixels a side
        big = _decode(data, min(side * CROP_ZOOM, math.ceil(side / share)))
    except Exception:  # noqa: BLE001 - as above
        return report
    fy, fx = big.shape[0] / h, big.shape[1] / w
    crop = big[int(y0 * fy):math.ceil(y1 * fy), int(x0 * fx):math.ceil(x1 * fx)]
    step = max(1, math.ceil(max(crop.shape[:2]) / side))
    again = _analyse(crop[::step, ::step].copy(), jpeg, t0, coarse, _mcu(size, big.shape[1] / step))
    return again if again.kind != "not_heatmap" else report


# a JPEG's pixels are coded in blocks of 16x16 (8x8 for luma, chroma halved): the ringing of an edge between two cells
# spreads over the block holding it
JPEG_MCU = 16


def _mcu(size: tuple[int, int] | None, width: float) -> float:
    """A JPEG block's width in analysed pixels (``width``: the analysed copy's; 0 when the image's size is unknown)."""
    return JPEG_MCU * width / size[0] if size and size[0] else 0.0


# The content of a screenshot: the box of what differs from the colour of most of the image's border, when it is at
# most CONTENT_SHARE of the image's longer side and far from a sliver; decoded again at up to CROP_ZOOM times the
# analysed size.
CONTENT_SHARE = 0.6
CROP_ZOOM = 4
# an image smaller than this a side in which no grid is found is said to be that small (its size, not "not a heatmap")
SMALL_SIDE = 160


def _size(data: bytes) -> tuple[int, int] | None:
    """The image's own width and height (its header only; None when unreadable)."""
    from PIL import Image

    try:
        return Image.open(io.BytesIO(data)).size
    except Exception:  # noqa: BLE001 - decoded once already; anything Pillow refuses now has no size to give
        return None


def _content_box(px: np.ndarray, tol: int) -> tuple[int, int, int, int] | None:
    h, w = px.shape[:2]
    if h < 8 or w < 8:
        return None
    edge = np.concatenate([px[0], px[-1], px[1:-1, 0], px[1:-1, -1]])
    colours, counts = np.unique(edge, axis=0, return_counts=True)
    if counts.max() < 0.5 * len(edge):
        return None                                        # no one colour around it: no page to crop away
    page = colours[int(np.argmax(counts))]
    other = np.abs(px - page).max(axis=2) > max(tol, 8)
    rows, cols = np.flatnonzero(other.any(axis=1)), np.flatnonzero(other.any(axis=0))
    if not len(rows):
        return None
    x0, y0, x1, y1 = int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1
    if max(x1 - x0, y1 - y0) > CONTENT_SHARE * max(h, w) or min(x1 - x0, y1 - y0) < 8:
        return None
    return x0, y0, x1, y1


def _analyse(px: np.ndarray | None, jpeg: bool, t0: float, coarse: float = 0.0, mcu: float = 0.0) -> FigureReport:
    """The analysis of the decoded pixels (``None``: the figure could not be decoded); ``coarse``: how much wider a
    low-quality JPEG's colours spread than at quality 50 (see :func:`_coarseness`); ``mcu``: a JPEG block's width in
    these pixels (see :func:`_mcu`)."""

    def done(kind: str, rows: int = 0, cols: int = 0, cells: int = 0, reason: str = "",
             lightness: tuple[float, ...] = (), colours: list | None = None, boxes: list | None = None) -> FigureReport:
        positions: tuple[float, ...] = ()
        if lightness and colours is not None and boxes is not None:
            at = scale_positions(np.array(colours))
            positions = _row_major_lightness(boxes, list(at), rows, cols) if at else ()
        return FigureReport(kind, rows, cols, cells, round((time.perf_counter() - t0) * 1000, 2), reason, lightness,
                            positions)

    if px is None:
        return done("unreadable")
    h, w = px.shape[:2]
    if h < 2 or w < 2:
        return done("blank")
    lum = px @ LUM
    ink = (lum < 235) | (px.max(axis=2) - px.min(axis=2) > 20)
    if lum.std() < 3.0 or ink.mean() < 0.005:
        return done("blank")

    tol = COLOUR_TOL + round(coarse) if jpeg or _noisy(px) else CLEAN_TOL
    cell_std, scale_tol = MAX_CELL_STD + coarse / 2, SCALE_TOL + coarse
    same_x = np.abs(px[:, 1:] - px[:, :-1]).max(axis=2) <= tol
    same_y = np.abs(px[1:, :] - px[:-1, :]).max(axis=2) <= tol
    lab = _label(same_x, same_y, h, w).ravel()
    k = int(lab.max()) + 1
    count = np.bincount(lab, minlength=k)
    min_count = max(MIN_CELL_SHARE * h * w, MIN_CELL_SIDE * MIN_CELL_SIDE)
    part = count >= MIN_PART
    if not part.any():
        return done("not_heatmap")
    ys, xs = np.divmod(np.arange(h * w), w)
    x0 = np.full(k, w)
    y0 = np.full(k, h)
    x1 = np.zeros(k, dtype=np.int64)
    y1 = np.zeros(k, dtype=np.int64)
    sel = part[lab]
    ls, xsel, ysel = lab[sel], xs[sel], ys[sel]
    np.minimum.at(x0, ls, xsel)
    np.minimum.at(y0, ls, ysel)
    np.maximum.at(x1, ls, xsel + 1)
    np.maximum.at(y1, ls, ysel + 1)
    on_border = (xsel == x0[ls]) | (xsel == x1[ls] - 1) | (ysel == y0[ls]) | (ysel == y1[ls] - 1)
    border = np.bincount(ls[on_border], minlength=k)
    flat = px.reshape(-1, 3).astype(np.float64)
    n = np.maximum(count, 1)[:, None]
    mean = np.stack([np.bincount(lab, flat[:, c], minlength=k) for c in range(3)], axis=1) / n
    sq = np.stack([np.bincount(lab, flat[:, c] ** 2, minlength=k) for c in range(3)], axis=1) / n
    std = np.sqrt(np.maximum(sq - mean ** 2, 0.0)).max(axis=1)
    bw_all, bh_all = x1 - x0, y1 - y0
    white_all = (mean @ LUM > 235) & (mean.max(axis=1) - mean.min(axis=1) < 20)
    ok = part & ~white_all & (std <= cell_std)
    bg = _background(lab.reshape(h, w), k)
    if bg is not None:
        ok[bg] = False

    # a value label across a small cell cuts it into a part above and a part below: rejoin aligned parts of
    # one colour separated by a few pixels (the label) before judging cells
    rect = np.flatnonzero(ok & (count >= MIN_HOLED_FILL * np.maximum(bw_all * bh_all, 1)))
    unit = np.arange(k)
    merged = np.zeros(k, dtype=bool)
    if 1 < len(rect) <= 2000:
        ax0, ax1, ay0, ay1 = x0[rect], x1[rect], y0[rect], y1[rect]
        pair = ((np.abs(ax0[:, None] - ax0[None]) <= 1) & (np.abs(ax1[:, None] - ax1[None]) <= 1)
                & (ay0[None] - ay1[:, None] >= 0) & (ay0[None] - ay1[:, None] <= LABEL_GAP)
                & (np.abs(mean[rect][:, None] - mean[rect][None]).max(axis=2) <= tol + 1))
        for a, b in zip(*np.nonzero(pair), strict=True):
            ra, rb = unit[rect[a]], unit[rect[b]]
            while unit[ra] != ra:
                ra = unit[ra]
            while unit[rb] != rb:
                rb = unit[rb]
            if ra != rb:
                lo, hi = min(ra, rb), max(ra, rb)
                unit[hi] = lo
                x0[lo], y0[lo] = min(x0[lo], x0[hi]), min(y0[lo], y0[hi])
                x1[lo], y1[lo] = max(x1[lo], x1[hi]), max(y1[lo], y1[hi])
                mean[lo] = (mean[lo] * count[lo] + mean[hi] * count[hi]) / (count[lo] + count[hi])
                count[lo] += count[hi]
                merged[lo] = True
                ok[hi] = False

    # a cell as light as the page (a masked key's 0 on Blues or Greys) is not taken for the page when something
    # encloses it (the axes' frame, neighbouring cells): it is a candidate that joins a grid it completes (round 24)
    light_ok = part & white_all & (std <= cell_std)
    if bg is not None:
        light_ok[bg] = False
    cells: list[tuple[int, int, int, int]] = []
    ids: list[int] = []
    light: list[tuple[int, int, int, int]] = []
    light_ids: list[int] = []
    for i in np.flatnonzero((ok | light_ok) & (count >= min_count)):
        bw, bh = int(x1[i] - x0[i]), int(y1[i] - y0[i])
        if bw < MIN_CELL_SIDE or bh < MIN_CELL_SIDE:
            continue
        fill = count[i] / (bw * bh)
        # a cell rejoined across its value label lacks at most the label's rows (round 33: the slanted side of a mountain
        # in a JPEG photo came in aligned pieces rejoined into a half-filled "cell", and with the grass below it the
        # photo was read as a 3×3 grid)
        whole = (merged[i] and fill >= MIN_FILL * (1 - LABEL_GAP / bh)) or border[i] >= MIN_BORDER * (2 * (bw + bh) - 4)
        if fill < MIN_FILL and not (whole and fill >= MIN_HOLED_FILL):
            continue
        if not ok[i]:
            light.append((int(x0[i]), int(y0[i]), int(x1[i]), int(y1[i])))
            light_ids.append(int(i))
            continue
        cells.append((int(x0[i]), int(y0[i]), int(x1[i]), int(y1[i])))
        ids.append(int(i))
    if 1 < len(cells) <= MAX_CELLS:
        # a region inside another cell's box is what fills its hole, not a cell of the grid: a value label that a
        # low-quality JPEG flattened into a block or two of one colour (round 31: at quality 5 each label of the lab's
        # heatmap was an 8x8 "cell" between the cells' edges, and the figure was "not a heatmap")
        nested = [any(j != i and o[0] < c[0] and o[1] < c[1] and c[2] < o[2] and c[3] < o[3]
                      for j, o in enumerate(cells)) for i, c in enumerate(cells)]
        cells = [c for c, n in zip(cells, nested, strict=True) if not n]
        ids = [i for i, n in zip(ids, nested, strict=True) if not n]
    if not cells or len(cells) > MAX_CELLS:
        return done("not_heatmap", cells=len(cells))

    # clusters of touching cells: a gridline narrower than a quarter of a typical cell may separate them
    sides = sorted(min(c[2] - c[0], c[3] - c[1]) for c in cells)
    gap = max(2.0, 0.25 * sides[len(sides) // 2])
    if jpeg and mcu:
        # the ringing of an edge eats the block holding it, on either side, and the reduction blurs a pixel more each
        # way (round 33: 60-pixel cells at quality 40 stood 6 analysed pixels apart where the block was 5, and the
        # heatmap was "a 2×2 grid")
        gap = max(gap, min(mcu + 2.0, 0.5 * sides[len(sides) // 2]))
    def grids_of(boxes: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, list[int]]]:
        """(area, rows, cols, indices into ``boxes``) of each cluster of touching boxes that tiles a grid."""
        parent = list(range(len(boxes)))

        def root(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        for i, (ax0, ay0, ax1, ay1) in enumerate(boxes):
            for j in range(i):
                bx0, by0, bx1, by1 = boxes[j]
                if ax0 - gap <= bx1 and bx0 - gap <= ax1 and ay0 - gap <= by1 and by0 - gap <= ay1:
                    parent[root(i)] = root(j)
        clusters: dict[int, list[int]] = {}
        for i in range(len(boxes)):
            clusters.setdefault(root(i), []).append(i)
        def tiled(members: list[int]) -> tuple[int, int, int, list[int]] | None:
            group = [boxes[i] for i in members]
            if jpeg:
                group = _regrown(group, gap)
            gx0, gy0 = min(c[0] for c in group), min(c[1] for c in group)
            gx1, gy1 = max(c[2] for c in group), max(c[3] for c in group)
            area = (gx1 - gx0) * (gy1 - gy0)
            if sum((c[2] - c[0]) * (c[3] - c[1]) for c in group) < MIN_COVERAGE * area:
                return None
            cols = _even_steps([e for c in group for e in (c[0], c[2])], gap)
            rows = _even_steps([e for c in group for e in (c[1], c[3])], gap)
            if jpeg and not (rows and cols):
                cols = cols or _centre_steps([(c[0], c[2]) for c in group], gap)
                rows = rows or _centre_steps([(c[1], c[3]) for c in group], gap)
            # no grid, a tiny one (a legend), or a single row/column of bands (a stepped colour bar, sky over grass)
            if rows and cols and rows >= 2 and cols >= 2 and area >= 0.05 * h * w:
                return area, rows, cols, members
            return None

        found: list[tuple[int, int, int, list[int]]] = []
        for members in clusters.values():
            grid = tiled(members)
            if grid is None and len(members) > 2:
                # a sliver within a gap of the cells (the flat end of a colour bar beside large cells, round 33: a
                # plotly export with its bar 40 px from the grid was "not a heatmap") is no cell: the rest may tile
                areas = sorted((boxes[i][2] - boxes[i][0]) * (boxes[i][3] - boxes[i][1]) for i in members)
                big = [i for i in members
                       if (boxes[i][2] - boxes[i][0]) * (boxes[i][3] - boxes[i][1]) >= SLIVER_SHARE * areas[len(areas) // 2]]
                grid = tiled(big) if 1 < len(big) < len(members) else None
            if grid is not None:
                found.append(grid)
        return found

    page = (lum > 235) & (px.max(axis=2) - px.min(axis=2) < 20)

    def a_grid(group: list[tuple[int, int, int, int]], colours: list, rows: int, cols: int) -> FigureReport:
        """The grid of ``group``'s cells, with the blank cells at its edges its labels or colour bar say it has."""
        blank = _edge_cells(group, ink, page, tol > CLEAN_TOL)
        if blank:
            wider = group + blank
            wr, wc = _even_steps([e for c in wider for e in (c[1], c[3])], gap), _even_steps(
                [e for c in wider for e in (c[0], c[2])], gap)
            if wr and wc:
                group, rows, cols = wider, wr, wc
                colours = colours + [px[y0 + 1:y1 - 1, x0 + 1:x1 - 1].reshape(-1, 3).mean(axis=0)
                                     for x0, y0, x1, y1 in blank]
        return done("grid", rows, cols, len(group), lightness=_row_major_lightness(
            group, [float(c @ LUM) for c in colours], rows, cols), colours=colours, boxes=group)

    grids = grids_of(cells)
    grids.sort(key=lambda g: -g[0])
    for _, rows, cols, members in grids:
        if _is_colour_scale(mean[[ids[i] for i in members]], scale_tol):
            group, colours = [cells[i] for i in members], [mean[ids[i]] for i in members]
            more = _light_cells(group, light, gap)
            if more:
                wider = group + [box for box, _j in more]
                wr, wc = _even_steps([e for c in wider for e in (c[1], c[3])], gap), _even_steps(
                    [e for c in wider for e in (c[0], c[2])], gap)
                wcol = colours + [mean[light_ids[j]] for _box, j in more]
                if wr and wc and wr * wc == len(wider) and _is_colour_scale(_drawn(wcol), scale_tol):
                    group, colours, rows, cols = wider, wcol, wr, wc
            return a_grid(group, colours, rows, cols)
    def with_extra(boxes: list[tuple[int, int, int, int]], colours: list[np.ndarray], whole: bool) -> FigureReport | None:
        """The largest grid of the cells and ``boxes`` (of ``colours``) that needs one of them; ``whole``: one box a
        cell (two cells of one colour merged into a box would place a page gap wrongly)."""
        every, every_colours = cells + boxes, [mean[i] for i in ids] + colours
        for _, rows, cols, members in sorted(grids_of(every), key=lambda g: -g[0]):
            found = [every_colours[i] for i in members]
            if any(i >= len(cells) for i in members) and (not whole or len(members) == rows * cols) \
                    and _is_colour_scale(_drawn(found), scale_tol):
                return a_grid([every[i] for i in members], found, rows, cols)
        return None

    if light:
        # light cells between the others (a masked middle column): only then do they take part in the clusters, each
        # cut into cells of the others' size (round 29: a masked column of two equal cells was one box, 5 cells of 6)
        units = _light_units(cells, light, gap)
        report = with_extra([u for u, _j in units], [mean[light_ids[j]] for _u, j in units], whole=False)
        if report is not None:
            return report
    if not grids:
        # cells left blank on a page without a frame (seaborn's mask=, a NaN on a gridless plot) are the page itself,
        # no candidate: a gap of whole cells between two cells of a row or a column, all page white, is such a cell
        # (round 29: a masked middle column was "not a heatmap")
        gaps = _page_gaps(cells, gap, page)
        report = with_extra(gaps, [px[y0 + 1:y1 - 1, x0 + 1:x1 - 1].reshape(-1, 3).mean(axis=0)
                                   for x0, y0, x1, y1 in gaps], whole=True) if gaps else None
        if report is not None:
            return report
    if grids:
        _, rows, cols, members = grids[0]
        return done("not_heatmap", rows, cols, len(members), reason="not_colour_scale")

    # no grid: one large flat area inside the figure (nothing else of its size) is a heatmap of equal values
    # whose rows and columns may still be counted from its labels
    areas = [(c[2] - c[0]) * (c[3] - c[1]) for c in cells]
    top = int(np.argmax(areas))
    bx0, by0, bx1, by1 = cells[top]
    inside = bx0 > 0 and by0 > 0 and bx1 < w and by1 < h
    alone = sorted(areas)[-2] < 0.25 * areas[top] if len(areas) > 1 else True
    if inside and alone and areas[top] >= 0.05 * h * w:
        region = (lab == ids[top]).reshape(h, w)
        rows, cols = _counted(ink, region, cells[top])
        if rows:
            return done("grid", rows, cols, 1, reason="uniform")
        return done("flat", cells=1)
    return done("not_heatmap", cells=len(cells))


# Whole columns (rows) of page white at the edge of a grid without a frame: a masked first or last key left undrawn
# (seaborn's mask=, a NaN) is the page itself, so the grid was read a column short (round 31: a 3x3 heatmap with a
# masked last column was "a 3×2 grid"). Such a column is taken only on the figure's own evidence that it is one:
# a tick label (or tick mark) centred on it as on every drawn column, or a colour bar (or axis line) beside the grid
# that ends exactly a whole number of cells beyond it. Pure margin, with nothing to say where cells would be, is
# never made into cells.
MAX_EDGE_CELLS = 3         # at most this many blank columns (rows) taken on one side
EDGE_REACH = 3             # ... looking for their evidence up to this many cells away from the grid


def _edge_extension(ink: np.ndarray, box: tuple[int, int, int, int], cw: float, ch: float, cols: int,
                    skip: int = 0) -> tuple[int, int]:
    """(left, right): how many whole columns of cells beyond the grid's ``box`` (``cols`` columns of ``cw`` pixels,
    rows of ``ch``) the figure's tick labels above or below it, or a colour bar or axis line there, say it has. For
    rows, call it on the transposed image."""
    gx0, gy0, gx1, gy1 = box
    h, w = ink.shape
    wx0, wx1 = max(0, round(gx0 - MAX_EDGE_CELLS * cw)), min(w, round(gx1 + MAX_EDGE_CELLS * cw))
    tol = max(1.5, 0.15 * cw)
    best = (0, 0)
    reach = round(EDGE_REACH * ch)
    # (``skip``: lines beside the grid left out, a JPEG's ringing along the cells' edge is no mark)
    for lines in (range(gy1 + 1 + skip, min(h, gy1 + 1 + reach)), range(gy0 - 2 - skip, max(-1, gy0 - 2 - reach), -1)):
        block: list[np.ndarray] = []
        for y in lines:
            row = ink[y, wx0:wx1]
            if row.any():
                block.append(row)
            elif block and sum(int(b.sum()) for b in block) > 2:
                break
            else:
                block = []                                  # a speck (JPEG ringing at the grid's edge) is no mark
        if not block:
            continue
        runs = _runs(np.any(block, axis=0))
        found = _ticks(runs, gx0 - wx0, cw, cols, tol) if len(block) <= 0.6 * ch else None
        if found is None and len(runs) == 1:
            found = _span(runs[0], gx0 - wx0, gx1 - wx0, cw)
        if found is not None and sum(found) > sum(best):
            best = found
    return best


def _runs(profile: np.ndarray) -> list[tuple[int, int]]:
    """Runs of ink in a profile, as (first, last + 1), joining runs a gap of at most 2 apart (the letters of a label)."""
    runs: list[list[int]] = []
    for i in np.flatnonzero(profile):
        if runs and i - runs[-1][1] <= 2:
            runs[-1][1] = int(i) + 1
        else:
            runs.append([int(i), int(i) + 1])
    return [(a, b) for a, b in runs]


def _ticks(runs: list[tuple[int, int]], x0: int, cw: float, cols: int, tol: float) -> tuple[int, int] | None:
    """Blank columns beyond the grid labelled as its drawn ones are: every run a label centred on a column of the
    grid's lattice (from ``x0``, ``cw`` wide), every drawn column labelled; None when the runs are not such labels."""
    at: set[int] = set()
    for a, b in runs:
        k = math.floor(((a + b) / 2 - x0) / cw)
        if b - a > 0.85 * cw or abs((a + b) / 2 - x0 - (k + 0.5) * cw) > tol:
            return None
        at.add(k)
    if not set(range(cols)) <= at:
        return None
    left = next(n for n in range(MAX_EDGE_CELLS + 1) if n == MAX_EDGE_CELLS or -(n + 1) not in at)
    right = next(n for n in range(MAX_EDGE_CELLS + 1) if n == MAX_EDGE_CELLS or cols + n not in at)
    return left, right


def _span(run: tuple[int, int], x0: int, x1: int, cw: float) -> tuple[int, int] | None:
    """Blank columns that a colour bar or an axis line beside the grid spans: it covers the grid and ends a whole
    number of cells beyond it, to within a pixel and a half (a colour bar taller than an imshow's image by less than a
    cell is not one)."""
    a, b = run
    if a > x0 + 1.5 or b < x1 - 1.5:
        return None
    left, right = round((x0 - a) / cw), round((b - x1) / cw)
    if abs(x0 - a - left * cw) > 1.5 or abs(b - x1 - right * cw) > 1.5:
        return None
    return min(left, MAX_EDGE_CELLS), min(right, MAX_EDGE_CELLS)


def _edge_cells(group: list[tuple[int, int, int, int]], ink: np.ndarray, page: np.ndarray,
                noisy: bool) -> list[tuple[int, int, int, int]]:
    """The blank cells at the grid's edges that its tick labels or colour bar say it has (see ``_edge_extension``),
    each page white inside its rim: the boxes of the wider grid's lattice no cell of ``group`` covers. On a noisy
    (JPEG) image the rim is wider and a speck or two may remain (ringing of the cells' edges and the labels)."""
    rim = 3 if noisy else 1
    cw = sorted(c[2] - c[0] for c in group)[len(group) // 2]
    ch = sorted(c[3] - c[1] for c in group)[len(group) // 2]
    gx0, gy0 = min(c[0] for c in group), min(c[1] for c in group)
    gx1, gy1 = max(c[2] for c in group), max(c[3] for c in group)
    cols, rows = round((gx1 - gx0) / cw), round((gy1 - gy0) / ch)
    if cw < MIN_CELL_SIDE or ch < MIN_CELL_SIDE or not cols or not rows:
        return []
    # the lattice's pitch, not the median cell: a JPEG's ringing eats a rim of each cell (a 27-pixel pitch of 25-pixel
    # cells put the third label 6 pixels off its column)
    cw, ch = (gx1 - gx0) / cols, (gy1 - gy0) / rows
    left, right = _edge_extension(ink, (gx0, gy0, gx1, gy1), cw, ch, cols, rim - 1)
    top, bottom = _edge_extension(ink.T, (gy0, gx0, gy1, gx1), ch, cw, rows, rim - 1)
    if not left + right + top + bottom:
        return []
    h, w = ink.shape
    out: list[tuple[int, int, int, int]] = []
    for r in range(-top, rows + bottom):
        for c in range(-left, cols + right):
            cx, cy = gx0 + (c + 0.5) * cw, gy0 + (r + 0.5) * ch
            if any(b[0] <= cx < b[2] and b[1] <= cy < b[3] for b in group):
                continue
            x0, y0 = round(gx0 + c * cw), round(gy0 + r * ch)
            x1, y1 = round(gx0 + (c + 1) * cw), round(gy0 + (r + 1) * ch)
            inner = page[y0 + rim:y1 - rim, x0 + rim:x1 - rim]
            if x0 < 0 or y0 < 0 or x1 > w or y1 > h or not inner.size or inner.mean() < 1.0 - 0.02 * (rim > 1):
                return []                                   # not blank: something else is drawn there
            out.append((x0, y0, x1, y1))
    return out


# the luma DC quantiser step of a JPEG saved at quality 50 (the IJG table's first entry)
DC_STEP_Q50 = 16
MAX_COARSE = 8.0


# a JPEG saved at this quality or lower is named in the figure's feedback when its grid was not read (round 33)
LOW_JPEG_QUALITY = 20


def _dc_step(data: bytes) -> float:
    """A JPEG's luma DC quantiser step (0 when Pillow cannot give its tables)."""
    from PIL import Image

    try:
        tables = Image.open(io.BytesIO(data)).quantization or {}
        return float(tables[0][0]) if 0 in tables else 0.0
    except Exception:  # noqa: BLE001 - decoded once already; a table Pillow cannot give leaves the analysis as it was
        return 0.0


def _coarseness(dc: float) -> float:
    """How much wider than at quality 50 a JPEG's flat colours spread: (its luma DC quantiser step ``dc`` - 16) / 16,
    from 0 (quality 50 and better: nothing changes) to MAX_COARSE (quality 5 is 9). Each block's mean is rounded to
    that step, and its chroma to a coarser one, so a cell's colour shifts and its blocks differ by more than
    COLOUR_TOL (round 31: the lab's heatmap saved at quality 5 was "not a heatmap")."""
    return min(MAX_COARSE, max(0.0, (dc - DC_STEP_Q50) / DC_STEP_Q50))


def jpeg_quality(dc: float) -> int:
    """The quality (1-100) of the IJG scaling that gives the luma DC step ``dc`` (libjpeg, Pillow, matplotlib and most
    cameras scale its table: below 50 each step is the table's times 50 / quality); 0 when unknown."""
    if dc <= 0:
        return 0
    if dc > DC_STEP_Q50:
        return max(1, round(DC_STEP_Q50 * 50 / dc))
    return min(100, round(100 - dc * 50 / DC_STEP_Q50))


def _regrown(group: list[tuple[int, int, int, int]], gap: float) -> list[tuple[int, int, int, int]]:
    """The cells of a noisy (JPEG) image grown back by half the usual gap between neighbours: the ringing of a
    low-quality JPEG eats a rim of every cell, both sides of each edge alike, so neighbouring cells stand apart and the
    outer ones are short of the lattice (round 31: at quality 10 the gridded heatmap's cells were 22 pixels a side
    on a 28-pixel lattice, and no lattice was found). A drawn gridline is closed as well, which changes nothing."""
    def half_gap(lo: int, hi: int, a0: int, a1: int) -> int:
        gaps = sorted(b[lo] - a[hi] for a in group for b in group
                      if 0 <= b[lo] - a[hi] <= gap and min(a[a1], b[a1]) - max(a[a0], b[a0]) > 0)
        return gaps[len(gaps) // 2] // 2 if gaps else 0

    gx, gy = half_gap(0, 2, 1, 3), half_gap(1, 3, 0, 2)
    if not gx and not gy:
        return group
    return [(x0 - gx, y0 - gy, x1 + gx, y1 + gy) for x0, y0, x1, y1 in group]
