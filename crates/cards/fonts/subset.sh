#!/bin/sh
# Makes FacedownCards.ttf and FacedownCards.woff2, the one font of the cards (crates/cards) and
# the pages' cards: a subset of Noto Sans (Latin) merged with the subsets of Noto Sans Symbols 2,
# Noto Sans Symbols and Noto Sans Math (the symbols the first lacks), all under the SIL Open
# Font License 1.1 (OFL.txt).
#
#   crates/cards/fonts/subset.sh
#
# The characters: printable ASCII, Latin-1, Latin Extended-A (names on sheets) and chars.txt
# (the symbols the cards and pages print). A development tool only: it needs Python's fontTools
# and brotli (pip install fonttools brotli) and Debian's fonts-noto-core; CI, the CLI and the
# server use the committed files. The same input gives the same bytes.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
noto=${NOTO_DIR:-/usr/share/fonts/truetype/noto}
python3 - "$noto" "$here" <<'PY'
import os, sys, tempfile
from fontTools import subset
from fontTools.merge import Merger
from fontTools.ttLib import TTFont

noto, here = sys.argv[1:3]
wanted = set(range(0x20, 0x7F)) | set(range(0xA0, 0x180))
with open(f"{here}/chars.txt", encoding="utf-8") as f:
    wanted |= {ord(c) for c in f.read() if ord(c) > 0x7F and not c.isspace()}
sources = ["NotoSans-Regular", "NotoSansSymbols2-Regular", "NotoSansSymbols-Regular", "NotoSansMath-Regular"]
left = set(wanted)
parts = []
tmp = tempfile.mkdtemp()
for name in sources:
    font = TTFont(f"{noto}/{name}.ttf")
    take = sorted(c for c in left if c in font.getBestCmap())
    if not take:
        continue
    left -= set(take)
    options = subset.Options()
    options.layout_features = []
    options.hinting = False
    options.notdef_outline = True
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]
    options.drop_tables += ["FFTM", "GSUB", "GPOS", "GDEF", "DSIG"]
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=take)
    subsetter.subset(font)
    path = f"{tmp}/{name}.ttf"
    font.recalcTimestamp = False
    font.save(path)
    parts.append(path)
if left:
    sys.exit("not in the fonts: " + " ".join(f"U+{c:04X}" for c in sorted(left)))
merged = Merger().merge(parts)
name = merged["name"]
for rec in list(name.names):
    if rec.nameID in (1, 4, 16, 17, 21, 22):
        name.removeNames(nameID=rec.nameID)
name.setName("Facedown Cards", 1, 3, 1, 0x409)
name.setName("Regular", 2, 3, 1, 0x409)
name.setName("Facedown Cards Regular", 3, 3, 1, 0x409)
name.setName("Facedown Cards", 4, 3, 1, 0x409)
name.setName("FacedownCards-Regular", 6, 3, 1, 0x409)
name.removeNames(platformID=1)
merged.recalcTimestamp = False
merged["head"].created = merged["head"].modified = TTFont(f"{noto}/NotoSans-Regular.ttf")["head"].modified
merged.save(f"{here}/FacedownCards.ttf")
woff = TTFont(f"{here}/FacedownCards.ttf")
woff.flavor = "woff2"
woff.recalcTimestamp = False
woff.save(f"{here}/FacedownCards.woff2")
print(f"FacedownCards: {len(woff.getBestCmap())} characters,",
      os.path.getsize(f"{here}/FacedownCards.ttf"), "bytes TTF,",
      os.path.getsize(f"{here}/FacedownCards.woff2"), "bytes WOFF2")
PY
