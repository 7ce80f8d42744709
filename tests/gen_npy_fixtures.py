#!/usr/bin/python3
"""gen_npy_fixtures.py - write the small .npy files that tests/test_npy.c reads.

Run from the source root with the system Python that has numpy
(python3-numpy from Debian; the pyenv python on PATH has none):

    /usr/bin/python3 tests/gen_npy_fixtures.py

The outputs are committed under tests/data/npy/, so the C tests never need
Python. Every array here is defined by a formula that test_npy.c repeats in C
(keep the two in step). The files were generated with numpy 1.24.
"""
import os

import numpy as np
import numpy.lib.format as fmt

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "npy")


def grid(shape, dtype):
    """value at flat index k is k * 0.25 - 3 (exact in float32 and float64)."""
    n = int(np.prod(shape))
    return (np.arange(n, dtype=np.float64) * 0.25 - 3.0).astype(dtype).reshape(shape)


def save(name, arr):
    np.save(os.path.join(OUT, name), arr)


def save_version(name, arr, version):
    with open(os.path.join(OUT, name), "wb") as f:
        fmt.write_array(f, arr, version=version)


def main():
    os.makedirs(OUT, exist_ok=True)
    # float32, written by attnviz too: the C test compares bytes.
    save("f4_1d.npy", np.array([-1.5, 0.0, 0.1, 3.25, 1e-3], dtype="<f4"))  # (5,)
    save("f4_2d.npy", grid((4, 8), "<f4"))
    save("f4_3d.npy", grid((2, 3, 4), "<f4"))
    save("f4_4d.npy", grid((2, 1, 3, 2), "<f4"))
    save("f4_0d.npy", np.array(1.5, dtype="<f4"))  # shape ()
    save("f4_empty.npy", np.zeros((0, 8), dtype="<f4"))
    # causal mask: True above the diagonal (masked)
    save("b1_2d.npy", np.triu(np.ones((3, 4), dtype=bool), k=1))

    # read-only fixtures
    save("f8_2d.npy", grid((3, 4), "<f8"))
    save("u1_1d.npy", np.array([0, 1, 2, 254, 255], dtype=np.uint8))
    save_version("f4_v2.npy", grid((2, 3), "<f4"), (2, 0))
    save_version("f4_v3.npy", grid((2, 3), "<f4"), (3, 0))

    # Fortran order ('fortran_order': True, first axis fastest in the data):
    # np.load gives the same logical arrays as the C-order files above, so the
    # C test expects grid() / the same mask.
    save("fortran.npy", np.asfortranarray(grid((2, 3), "<f4")))
    w = np.ascontiguousarray(grid((4, 8), "<f4").T)  # (8, 4), C order, like an nn.Linear weight
    save("f4_2d_fortran.npy", w.T)  # np.save(w.T): a transposed array is written in Fortran order
    save("f4_3d_fortran.npy", np.asfortranarray(grid((2, 3, 4), "<f4")))
    save("f4_4d_fortran.npy", np.asfortranarray(grid((2, 1, 3, 2), "<f4")))
    save("f8_2d_fortran.npy", np.asfortranarray(grid((3, 4), "<f8")))
    save("b1_2d_fortran.npy", np.asfortranarray(np.triu(np.ones((3, 4), dtype=bool), k=1)))
    save("u1_2d_fortran.npy", np.asfortranarray(np.arange(6, dtype=np.uint8).reshape(2, 3) * 50))
    nanf = np.asfortranarray(grid((4, 8), "<f4"))
    nanf[2, 1] = np.nan  # first in the file's (column) order
    nanf[0, 5] = np.nan  # first in C order: the one reported
    save("nan_2d_fortran.npy", nanf)

    # error fixtures
    save("i8_2d.npy", np.arange(6, dtype="<i8").reshape(2, 3))
    save("f4_bigendian.npy", grid((2, 3), ">f4"))
    nan = grid((4, 8), "<f4")
    nan[0, 5] = np.nan
    nan[2, 1] = np.nan  # only the first one is reported
    save("nan_2d.npy", nan)
    inf = grid((4, 8), "<f4")
    inf[1, 2] = np.inf
    save("inf_2d.npy", inf)
    big = grid((2, 2), "<f8")
    big[1, 0] = 1e300  # finite in float64, not in float32
    save("f8_overflow.npy", big)


if __name__ == "__main__":
    main()
