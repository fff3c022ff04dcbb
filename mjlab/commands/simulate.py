"""``mjlab simulate``: the command handler (commands layer, above the engine and analysis).

It parses the arguments into a :class:`engine.runs.run.RunSpec` and writes one Parquet file
(:func:`engine.runs.run.simulate`) or a chunked dataset (:func:`engine.runs.dataset.run_dataset`).
With ``--summary-only`` the dataset's chunks hold the analysis layer's mergeable
summary: this handler gives the dataset that reducer
(:class:`analysis.summary.SummaryReducer`), so the engine itself never imports the
analysis layer. The engine and analysis are imported inside the handler, so that
``mjlab --help`` stays quick.
"""

from __future__ import annotations

import os
from pathlib import Path

from engine.errors import UsageError

__all__ = ["run_simulate"]


def run_simulate(args) -> int:
    """Handle ``mjlab simulate``: one Parquet file, or a chunked dataset folder ``DIR/``."""
    from analysis.summary import SummaryReducer
    from engine import fileio, paths
    from engine.play.bots import file_overrides
    from engine.runs.dataset import DEFAULT_CHUNK_MATCHES, run_dataset
    from engine.runs.run import (
        DEFAULT_MATCH_LENGTH,
        MAX_MATCHES,
        MAX_WORKERS,
        _check_int,
        check_memory,
        make_spec,
        resolve_policies,
        simulate,
    )
    from engine.variants import get as get_variant
    from engine.variants import parse_rule_args

    raw = str(args.out)
    out = Path(raw)
    as_folder = raw.endswith(("/", os.sep)) or (bool(raw.strip()) and os.path.isdir(raw))
    paths.check_output(raw, "--out", folder=as_folder)
    rules = parse_rule_args(args.rule, args.rules)
    overrides = None
    if getattr(args, "bot_params", None) is not None:
        v = get_variant(args.variant)
        pols = resolve_policies(v, args.policy, v.n_players(v.resolve(rules)))
        overrides = file_overrides(v, pols, args.bot_params)
    spec = make_spec(
        args.variant,
        args.deals,
        args.seed,
        rules,
        args.policy,
        DEFAULT_MATCH_LENGTH if args.match_length is None else args.match_length,
        overrides,
        getattr(args, "seating", "seat"),
    )
    tls = (args.tls_ca_file, args.tls_cert, args.tls_key)
    if any(x is not None for x in tls) and args.scheduler is None:
        raise UsageError("--tls-ca-file, --tls-cert and --tls-key go with --scheduler tls://...")
    if args.scheduler is not None and args.backend != "dask":
        raise UsageError("--scheduler goes with --backend dask")
    if args.workers is not None:
        _check_int("--workers", args.workers, 1, MAX_WORKERS)
    if args.chunk_matches is not None:
        _check_int("--chunk-matches", args.chunk_matches, 1, MAX_MATCHES)
    if as_folder or args.summary_only or args.backend != "local":
        if not as_folder:
            raise UsageError(
                "--summary-only and --backend dask write a chunked dataset: "
                "give --out DIR/ (with a trailing slash)"
            )
        cores = os.cpu_count() or 1
        if args.backend == "dask" and args.scheduler is None and (args.workers or 0) > cores:
            raise UsageError(
                f"--workers {args.workers}: a local Dask cluster runs at most one worker per "
                f"core ({cores} here); give --scheduler ADDR for a larger cluster"
            )
        security = None
        if args.scheduler is not None:
            from engine.runs.cluster import client_security

            security = client_security(args.scheduler, *tls)
        res = run_dataset(
            spec,
            out,
            chunk_matches=DEFAULT_CHUNK_MATCHES
            if args.chunk_matches is None
            else args.chunk_matches,
            reducer=SummaryReducer if args.summary_only else None,
            backend=args.backend,
            scheduler=args.scheduler,
            workers=args.workers,
            progress=not args.quiet,
            force=args.force,
            security=security,
        )
        if not args.quiet:
            print(
                f"{out}: {res['chunks']} chunks ({res['skipped']} already complete, "
                f"{res['played']} played), {res['deals']:,} deals of {spec.variant} "
                f"(rules_id {get_variant(spec.variant).rules_id(spec.rules)}, policies "
                f"{_policies(spec.policies)})"
            )
        return 0
    if out.suffix != ".parquet":
        raise UsageError(f"--out must be PATH.parquet or a folder DIR/, got {args.out}")
    if args.chunk_matches is not None:
        raise UsageError("--chunk-matches goes with a dataset folder: give --out DIR/")
    check_memory(
        spec.deals,
        "give --out DIR/ for a chunked dataset, which holds one chunk at a time",
    )
    paths.check_output(out, "--out")
    with fileio.OutputLock(out, f"simulate {spec.variant} --deals {spec.deals} --seed {spec.seed}"):
        if out.exists() and _existing_is_complete(out, spec, args.force):
            if not args.quiet:
                print(f"{out}: already holds this run ({spec.deals:,} deals), nothing to do")
            return 0
        run = simulate(
            args.variant,
            args.deals,
            seed=args.seed,
            rules=rules,
            policies=args.policy,
            match_length=spec.match_length,
            workers=args.workers,
            progress=not args.quiet,
            bot_params=overrides,
            seating=spec.seating,
        )
        run.to_parquet(out)
    if not args.quiet:
        print(
            f"wrote {run.deals:,} deals of {run.variant} (rules_id {run.rules_id}, policies "
            f"{_policies(run.policies)}) to {out}"
        )
    return 0


def _policies(pols) -> str:
    """``strong`` for one policy at every seat, else ``p0,p1,p2,p3``."""
    pols = list(pols)
    return pols[0] if len(set(pols)) == 1 else ",".join(pols)


def _existing_is_complete(out: Path, spec, force: bool) -> bool:
    """Whether ``out`` already holds this run, verified; UsageError if it holds another.

    A damaged copy of this run is played again (with a message); another run's file or
    a foreign file is replaced only with ``force``.
    """
    import sys

    from engine import fileio
    from engine.runs.dataset import check_claims, differs, run_identity

    try:
        pm = fileio.read_meta(out)
    except UsageError as exc:
        if not force:
            raise UsageError(
                f"{out} exists and is not mjlab output ({str(exc).split(': ', 1)[-1]}); "
                "use --force to replace it, or another --out"
            ) from None
        print(f"mjlab: {out}: --force: replacing a file that is not mjlab output", file=sys.stderr)
        return False
    theirs, ident = run_identity(pm.meta), spec.identity()
    diff = differs(theirs, ident)
    if diff and fileio.meta_intact(pm):  # else its identity is damaged: played again below
        if not force:
            raise UsageError(
                f"{out} holds another run (it differs in {', '.join(diff)}); "
                "use --force to replace it, or another --out"
            )
        print(f"mjlab: {out}: --force: replacing another run's file", file=sys.stderr)
        return False
    try:
        check_claims(pm)
        fileio.verify(pm)
    except UsageError as exc:
        print(f"mjlab: {exc}; playing it again", file=sys.stderr)
        return False
    return True
