"""Out-of-core fit: ALARM rows sampled in chunks (never materialised) -> HillClimbStructure.

Every run is a fresh subprocess so that its peak RSS (``ru_maxrss``) is its own. For each
size the chunked fit reports the wall time (and the part spent drawing the samples, which
is the data source, not skbn), the number of distinct rows the chunks compress to, and the
peak RSS; for the ``--check`` size it also fits in memory on the concatenated rows and
asserts that edges, score and CPTs are identical.

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_out_of_core.py --rows 1000000 10000000 --check 1000000

``--encode`` times the encoder alone instead (CPU time, median of ``--repeat`` runs): float
(continuous) columns, whole-valued float columns (discrete codes held as floats), integer
and text columns, ``--encode-shape`` rows x columns each, and prints a digest of the
discrete codes so that two versions of skbn can be checked bit for bit:

    PYTHONPATH=. python benchmarks/bench_out_of_core.py --encode
"""

import argparse
import hashlib
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np


def _chunks(network, n_rows, chunk_rows, clock):
    for i in range(-(-n_rows // chunk_rows)):
        start = time.perf_counter()
        chunk = network.sample(min(chunk_rows, n_rows - i * chunk_rows), random_state=i)
        clock[0] += time.perf_counter() - start
        yield chunk


def _child(mode, n_rows, chunk_rows):
    from _common import load_shared

    from skbn import HillClimbStructure

    class Recording(HillClimbStructure):
        def _learn_structure(self, data, knowledge, **kwargs):
            start = time.perf_counter()
            edges = super()._learn_structure(data, knowledge, **kwargs)
            self.bench_ = {"distinct_rows": data.n_samples, "search_s": time.perf_counter() - start}
            return edges

    network = load_shared("alarm")
    sampling = [0.0]
    start = time.perf_counter()
    if mode == "chunks":
        model = Recording().fit(_chunks(network, n_rows, chunk_rows, sampling))
    else:
        import pandas as pd

        frame = pd.concat(list(_chunks(network, n_rows, chunk_rows, sampling)), ignore_index=True)
        model = Recording().fit(frame)
    wall = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    result = {
        "mode": mode, "rows": n_rows, "wall_s": wall, "sampling_s": sampling[0],
        "fit_s": wall - sampling[0], "peak_rss_mb": peak_mb, **model.bench_,
        "edges": [list(e) for e in model.edges_], "score": model.score_,
        "cpts": {k: v.tolist() for k, v in model.network_.cpts.items()},
    }
    print(json.dumps(result))


def _encode(n_rows, n_columns, repeat):
    """CPU seconds (median of ``repeat``) of ``encode_fit`` on frames of one column kind."""
    import warnings

    import pandas as pd

    from skbn._data import encode_fit

    rng = np.random.default_rng(0)
    names = [f"v{j}" for j in range(n_columns)]
    frames = {
        "float (continuous)": pd.DataFrame(rng.normal(size=(n_rows, n_columns)), columns=names),
        "whole floats (discrete)": pd.DataFrame(rng.integers(0, 4, (n_rows, n_columns)).astype(float),
                                                columns=names),
        "int (discrete)": pd.DataFrame(rng.integers(0, 4, (n_rows, n_columns)), columns=names),
        "text (discrete)": pd.DataFrame(rng.choice(np.array(["a", "b", "c"], dtype=object),
                                                   (n_rows, n_columns // 10)),
                                        columns=names[:n_columns // 10]),
    }
    rows = []
    for kind, frame in frames.items():
        times = []
        for _ in range(repeat):
            fresh = frame.copy()  # no column cached by an earlier run
            start = time.process_time()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                data, _ = encode_fit(fresh, allow_continuous=True)
            times.append(time.process_time() - start)
        digest = hashlib.sha256(np.ascontiguousarray(data.codes).tobytes()
                                + str(data.codes.dtype).encode()).hexdigest()[:12]
        rows.append({"columns": kind, "shape": f"{frame.shape[0]}x{frame.shape[1]}",
                     "cpu_s (median)": float(np.median(times)), "codes digest": digest})
    return rows


def _run(mode, n_rows, chunk_rows):
    out = subprocess.run(
        [sys.executable, __file__, "--child", mode, "--rows", str(n_rows), "--chunk", str(chunk_rows)],
        check=True, capture_output=True, text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000])
    parser.add_argument("--chunk", type=int, default=100_000)
    parser.add_argument("--check", type=int, default=None, help="size also fitted in memory and compared")
    parser.add_argument("--child", choices=["chunks", "memory"], help=argparse.SUPPRESS)
    parser.add_argument("--encode", action="store_true", help="time the encoder alone (see above)")
    parser.add_argument("--encode-shape", type=int, nargs=2, default=[10_000, 1_000],
                        metavar=("ROWS", "COLUMNS"))
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if args.encode:
        from _common import print_table

        import skbn

        print(f"skbn from {Path(skbn.__file__).parent}")
        print_table(_encode(*args.encode_shape, args.repeat),
                    ["columns", "shape", "cpu_s (median)", "codes digest"])
        return
    if args.child:
        _child(args.child, args.rows[0], args.chunk)
        return
    from _common import print_table

    rows = []
    for n_rows in args.rows:
        chunked = _run("chunks", n_rows, args.chunk)
        rows.append(chunked)
        if n_rows == args.check:
            in_memory = _run("memory", n_rows, args.chunk)
            rows.append(in_memory)
            same = (chunked["edges"] == in_memory["edges"] and chunked["score"] == in_memory["score"]
                    and all(np.array_equal(chunked["cpts"][k], v) for k, v in in_memory["cpts"].items()))
            print(f"{n_rows} rows: chunked fit == in-memory fit (edges, score_, CPTs): {same}")
            assert same
    for row in rows:
        row["rows/s (fit)"] = row["rows"] / row["fit_s"]
        row["chunks"] = -(-row["rows"] // args.chunk) if row["mode"] == "chunks" else "-"
    print_table(rows, ["mode", "rows", "chunks", "distinct_rows", "wall_s", "sampling_s", "fit_s",
                       "search_s", "rows/s (fit)", "peak_rss_mb"])


if __name__ == "__main__":
    main()
