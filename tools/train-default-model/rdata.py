#!/usr/bin/python3
"""Minimal reader for R's serialization format (versions 2 and 3, XDR binary) and
lazy-load databases (data/Rdata.rdx + data/Rdata.rdb), enough to pull character
vectors out of an R data package. No R needed.

Usage: rdata.py PKGDIR/data/Rdata   -> prints the object names and their types
"""
import bz2
import gzip
import lzma
import struct
import sys
import zlib

NILSXP, SYMSXP, LISTSXP, CLOSXP, ENVSXP, PROMSXP, LANGSXP = 0, 1, 2, 3, 4, 5, 6
CHARSXP, LGLSXP, INTSXP, REALSXP, CPLXSXP, STRSXP, DOTSXP = 9, 10, 13, 14, 15, 16, 17
VECSXP, EXPRSXP, BCODESXP, EXTPTRSXP, WEAKREFSXP, RAWSXP, S4SXP = 19, 20, 21, 22, 23, 24, 25
REFSXP, NILVALUE_SXP, GLOBALENV_SXP, UNBOUNDVALUE_SXP = 255, 254, 253, 252
MISSINGARG_SXP, BASENAMESPACE_SXP, NAMESPACESXP, PACKAGESXP = 251, 250, 249, 248
PERSISTSXP, EMPTYENV_SXP, BASEENV_SXP = 247, 242, 241
ATTRLANGSXP, ATTRLISTSXP, ALTREP_SXP = 240, 239, 238
NA_INT = -2147483648


class RObj:
    """A generic R object: type code, value (python list / str / dict), attributes."""

    def __init__(self, rtype, value=None, attrs=None):
        self.rtype = rtype
        self.value = value
        self.attrs = attrs or {}

    def __repr__(self):
        return f"RObj({self.rtype}, {str(self.value)[:60]!r}, attrs={list(self.attrs)})"


class Sym:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"Sym({self.name})"


class Reader:
    def __init__(self, data):
        self.d = data
        self.p = 0
        self.refs = []

    def int(self):
        v = struct.unpack_from(">i", self.d, self.p)[0]
        self.p += 4
        return v

    def length(self):
        n = self.int()
        if n == -1:
            hi, lo = self.int(), self.int()
            n = (hi << 32) + lo
        return n

    def header(self):
        fmt = self.d[:2]
        if fmt != b"X\n":
            raise ValueError(f"unsupported R serialization format {fmt!r} (only XDR)")
        self.p = 2
        version = self.int()
        self.int()  # writer R version
        self.int()  # minimal reader R version
        if version == 3:
            n = self.int()
            self.encoding = self.d[self.p:self.p + n].decode()
            self.p += n
        elif version != 2:
            raise ValueError(f"unsupported serialization version {version}")
        return version

    def pairlist_to_dict(self, pl):
        out = {}
        while isinstance(pl, RObj) and pl.rtype in (LISTSXP, ATTRLISTSXP):
            car, tag, cdr = pl.value
            out[tag.name if isinstance(tag, Sym) else str(len(out))] = car
            pl = cdr
        return out

    def item(self):
        flags = self.int()
        t = flags & 0xFF
        has_attr = bool(flags & (1 << 9))
        has_tag = bool(flags & (1 << 10))
        if t == NILVALUE_SXP:
            return None
        if t in (EMPTYENV_SXP, BASEENV_SXP, GLOBALENV_SXP, UNBOUNDVALUE_SXP,
                 MISSINGARG_SXP, BASENAMESPACE_SXP):
            return RObj(t)
        if t == REFSXP:
            idx = flags >> 8
            if idx == 0:
                idx = self.int()
            return self.refs[idx - 1]
        if t in (PERSISTSXP, PACKAGESXP, NAMESPACESXP):
            self.int()  # 0
            n = self.int()
            v = RObj(t, [self.item().value for _ in range(n)])
            self.refs.append(v)
            return v
        if t == SYMSXP:
            s = Sym(self.item().value)
            self.refs.append(s)
            return s
        if t == ENVSXP:
            env = RObj(ENVSXP)
            self.refs.append(env)
            self.int()  # locked
            enclos, frame, hashtab, attrib = self.item(), self.item(), self.item(), self.item()
            env.value = {"enclos": enclos, "frame": frame, "hashtab": hashtab}
            env.attrs = self.pairlist_to_dict(attrib)
            return env
        if t in (LISTSXP, LANGSXP, CLOSXP, PROMSXP, DOTSXP, ATTRLANGSXP, ATTRLISTSXP):
            attrs = self.pairlist_to_dict(self.item()) if has_attr else {}
            tag = self.item() if has_tag else None
            car = self.item()
            cdr = self.item()
            return RObj(t, (car, tag, cdr), attrs)
        if t == ALTREP_SXP:
            info = self.item()
            state = self.item()
            attr = self.item()
            cls = info.value[0].name if isinstance(info, RObj) else "?"
            if cls == "compact_intseq":
                n, start, step = state.value
                v = RObj(INTSXP, [int(start + i * step) for i in range(int(n))])
            elif cls == "compact_realseq":
                n, start, step = state.value
                v = RObj(REALSXP, [start + i * step for i in range(int(n))])
            elif cls.startswith("wrap_"):
                v = state.value[0]
            elif cls == "deferred_string":
                arg = state.value[0]
                v = RObj(STRSXP, [None if x is None else str(x) for x in arg.value])
            else:
                raise ValueError(f"unsupported ALTREP class {cls}")
            if attr is not None:
                v.attrs = self.pairlist_to_dict(attr)
            return v
        if t == CHARSXP:
            n = self.int()
            if n == -1:
                return RObj(CHARSXP, None)
            s = self.d[self.p:self.p + n]
            self.p += n
            # levels bits: 1<<3 = UTF8, 1<<2 = LATIN1, 1<<6 = ASCII, 1<<1 = BYTES
            levels = flags >> 12
            enc = "latin-1" if levels & 4 else "utf-8"
            return RObj(CHARSXP, s.decode(enc, errors="replace"))
        if t in (LGLSXP, INTSXP):
            n = self.length()
            v = list(struct.unpack_from(f">{n}i", self.d, self.p))
            self.p += 4 * n
            obj = RObj(t, [None if x == NA_INT else x for x in v])
        elif t == REALSXP:
            n = self.length()
            obj = RObj(t, list(struct.unpack_from(f">{n}d", self.d, self.p)))
            self.p += 8 * n
        elif t == CPLXSXP:
            n = self.length()
            v = struct.unpack_from(f">{2 * n}d", self.d, self.p)
            self.p += 16 * n
            obj = RObj(t, [complex(v[2 * i], v[2 * i + 1]) for i in range(n)])
        elif t == STRSXP:
            n = self.length()
            obj = RObj(t, [self.item().value for _ in range(n)])
        elif t in (VECSXP, EXPRSXP):
            n = self.length()
            obj = RObj(t, [self.item() for _ in range(n)])
        elif t == RAWSXP:
            n = self.length()
            obj = RObj(t, self.d[self.p:self.p + n])
            self.p += n
        elif t == S4SXP:
            obj = RObj(t)
        else:
            raise ValueError(f"unsupported SEXP type {t} at offset {self.p - 4}")
        if has_attr:
            obj.attrs = self.pairlist_to_dict(self.item())
        return obj


def unserialize(data):
    r = Reader(data)
    r.header()
    return r.item()


def decompress_file(raw):
    """An .rds/.rda file: gzip, bzip2, xz or uncompressed."""
    if raw[:2] == b"\x1f\x8b":
        return gzip.decompress(raw)
    if raw[:3] == b"BZh":
        return bz2.decompress(raw)
    if raw[:6] == b"\xfd7zXZ\x00":
        return lzma.decompress(raw)
    return raw


def decompress_lazy(blob, compressed=1):
    """One lazy-load database record: 4-byte big-endian length, then the payload."""
    n = struct.unpack_from(">I", blob, 0)[0]
    if compressed in (2, 3):
        kind, payload = blob[4:5], blob[5:]
        if kind == b"Z":
            out = zlib.decompress(payload)
        elif kind == b"2":
            out = bz2.decompress(payload)
        elif kind == b"X":
            out = lzma.decompress(payload)
        elif kind == b"0":
            out = payload
        else:
            raise ValueError(f"unknown lazy-load compression {kind!r}")
    else:
        out = zlib.decompress(blob[4:])
    if len(out) != n:
        raise ValueError("lazy-load record has the wrong length")
    return out


def as_dict(vec):
    names = vec.attrs.get("names")
    return dict(zip(names.value, vec.value))


def load_lazy_db(base):
    """base = '.../data/Rdata' -> {name: RObj}"""
    with open(base + ".rdx", "rb") as f:
        rdx = f.read()
    # the index is written either as a plain compressed file (gzip etc.) or as one
    # lazy-load record
    if rdx[:2] in (b"\x1f\x8b", b"BZ") or rdx[:6] == b"\xfd7zXZ\x00":
        rdx = decompress_file(rdx)
    else:
        rdx = decompress_lazy(rdx)
    index = as_dict(unserialize(rdx))
    comp = index.get("compressed")
    comp = int(comp.value[0]) if comp is not None else 1
    with open(base + ".rdb", "rb") as f:
        rdb = f.read()
    out = {}
    for name, pos in as_dict(index["variables"]).items():
        off, ln = (int(x) for x in pos.value)
        out[name] = unserialize(decompress_lazy(rdb[off:off + ln], comp))
    return out


if __name__ == "__main__":
    for k, v in load_lazy_db(sys.argv[1]).items():
        print(k, v.rtype, len(v.value) if isinstance(v.value, list) else "")
