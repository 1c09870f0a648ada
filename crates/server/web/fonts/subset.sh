#!/bin/sh
# Makes symbols.woff2, the subset of DejaVu Sans the pages use for their symbols, with its
# licence (LICENSE-DejaVu.txt, from the font's own name table) and the stylesheet that sends
# those characters to it (../css/symbols.css, its unicode-range from the subset's cmap).
#
#   crates/server/web/fonts/subset.sh [CHARS_FILE]
#
# The characters are those in CHARS_FILE (default: gathered by the server's web_font test, as
# every character the pages may print) and those in extra-chars.txt (kept for pages to come).
# A development tool only: it needs Python's fontTools and brotli (pip install fonttools
# brotli) and Debian's fonts-dejavu-core; CI and the server do not.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
font=${DEJAVU_SANS:-/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf}
chars=${1:-}
if [ -z "$chars" ]; then
    chars=$(mktemp)
    trap 'rm -f "$chars"' EXIT
    (cd "$here/../../../.." && FACEDOWN_WRITE_FONT_CHARS="$chars" \
        cargo test -q -p server --test web_font the_gathering_finds_the_books_symbols >/dev/null)
fi
python3 - "$font" "$chars" "$here" <<'PY'
import sys
from fontTools import subset
from fontTools.ttLib import TTFont

font_path, chars_path, here = sys.argv[1:4]
wanted = set()
for path in (chars_path, f"{here}/extra-chars.txt"):
    with open(path, encoding="utf-8") as f:
        wanted |= {c for c in f.read() if ord(c) > 0x7F and not c.isspace()}
source = TTFont(font_path)
missing = sorted(c for c in wanted if ord(c) not in source.getBestCmap())
if missing:
    sys.exit("not in the font: " + " ".join(f"{c} U+{ord(c):04X}" for c in missing))
options = subset.Options()
options.flavor = "woff2"
options.layout_features = []
options.hinting = False
options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]
options.notdef_outline = True
options.drop_tables += ["FFTM"]  # FontForge's timestamps: nothing a browser reads
subsetter = subset.Subsetter(options)
subsetter.populate(unicodes=sorted(ord(c) for c in wanted))
subsetter.subset(source)
source.recalcTimestamp = False
subset.save_font(source, f"{here}/symbols.woff2", options)

with open(f"{here}/LICENSE-DejaVu.txt", "w", encoding="utf-8") as f:
    f.write(TTFont(font_path)["name"].getDebugName(13).rstrip() + "\n")

codes = sorted(TTFont(f"{here}/symbols.woff2").getBestCmap())
ranges = []
for c in codes:
    if ranges and ranges[-1][1] == c - 1:
        ranges[-1][1] = c
    else:
        ranges.append([c, c])
spans = [f"U+{a:X}" if a == b else f"U+{a:X}-{b:X}" for a, b in ranges]
lines = []
line = "    "
for i, s in enumerate(spans):
    piece = s + ("," if i < len(spans) - 1 else ";")
    if len(line) + len(piece) + 1 > 100:
        lines.append(line.rstrip())
        line = "    "
    line += piece + " "
lines.append(line.rstrip())
with open(f"{here}/../css/symbols.css", "w", encoding="utf-8") as f:
    f.write("/* The symbols the pages print, from a subset of DejaVu Sans (fonts/README.md): phones\n"
            "   lack fonts for some of them. Written by fonts/subset.sh; the unicode-range is the\n"
            "   subset's, so only these characters are drawn with it. Put \"facedown symbols\" first in\n"
            "   a font-family list. */\n"
            "@font-face {\n"
            "  font-family: \"facedown symbols\";\n"
            "  src: url(\"/assets/fonts/symbols.woff2\") format(\"woff2\");\n"
            "  font-display: swap;\n"
            "  unicode-range:\n" + "\n".join(lines) + "\n}\n")
print(f"symbols.woff2: {len(codes)} characters")
PY
