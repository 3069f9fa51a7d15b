#!/usr/bin/env python3
"""Re-derive mlperf_training.csv and SOURCES.md (data/validation/) from local bare-git
clones of github.com/mlcommons/training_results_v{3.0,3.1,4.0,4.1,5.0,5.1}.

Usage: extract_mlperf.py MIRROR_DIR OUT_DIR, where MIRROR_DIR/mlcommons+training_results_vX.Y/repo
is a bare clone of each round (git clone --bare https://github.com/mlcommons/training_results_vX.Y).
The release column is left blank (these stacks are not calibrated releases; predict then uses the
calibration's default release) and the round goes to mlperf_round; rows whose result files are
identical to an earlier round's apart from their :::SYSJSON lines (status duplicate) are listed in
SOURCES.md but not written. recompute is none: no config turns activation recomputation on.

Python standard library only (uses the `git` and `bash` executables through subprocess).

Steps per results folder  <org>/results/<system>/<benchmark>  (benchmark in gpt3, llama31_405b):
  1. system JSON <org>/systems/<system>.json -> nodes, GPUs/node, accelerator, framework_name.
  2. implementation dir: a folder under <org>/benchmarks/<benchmark>/ holding config_*.sh;
     the one named like the results folder if present (v4.1+), else the only/first one.
  3. config file: the one named in README-<system>.md ("... submission are in the `...config_X.sh`")
     if present; otherwise every config_*.sh of the implementation dir is sourced in a clean bash
     (env -i) and kept if DGXNNODES/DGXNGPU match the system JSON and MINIBS*dp (or GLOBAL_BATCH_SIZE)
     matches the global_batch_size logged in the result file.
     The config is *sourced* (only `export`s, $(dirname), $(basename ...), arithmetic) in a temp copy
     so that config_common.sh / config_fp8.sh / ... overrides are resolved exactly as at launch.
  4. throughput from the :::MLLOG lines of every result_*.txt of the folder:
     - per-step "tracked_stats" keys train_step_timing / "train_step_timing in s" / train_step_time
       (one record per global step; verified from the metadata 'step' increment), dropping the first
       SKIP_FIRST records of the run and the first record after every eval (block start);
       per-file median step time; group value = median over files.
     - if no per-step key exists (v4.0 logs): block timing. For each block_start..block_stop pair
       (eval is outside blocks) except the first block (includes warm-up), steps in block =
       epoch_count/(gbs*seq) for GPT-3 (epoch_count is in tokens); step time = block duration/steps;
       per-file = total block time / total steps; group value = median over files.
     - block-timing throughput is also computed for every folder as a cross-check (in notes).
     tokens_per_sec_per_gpu = gbs*seq/step_time/num_gpus.
"""
import csv, hashlib, json, os, re, statistics, subprocess, sys, tempfile, shutil

MIRROR = sys.argv[1] if len(sys.argv) > 1 else 'mirrors'
OUT = sys.argv[2] if len(sys.argv) > 2 else '.'
ROUNDS = ['3.0', '3.1', '4.0', '4.1', '5.0', '5.1']
BENCH = {'gpt3': 'GPT-3 175B', 'llama31_405b': 'Llama 3.1 405B'}
DEFAULT_LAYERS = {'gpt3': 96, 'llama31_405b': 126}
SKIP_ORGS = {'Google', 'Intel-HabanaLabs'}          # not NVIDIA NeMo implementations
# power-measurement copies of the same smc runs (same result ids): skip, keep 'smc'
SKIP_ORGS |= {'smc-ac-power', 'smc-dc-power'}
SKIP_FIRST = 3
STEP_KEYS = ('train_step_timing', 'train_step_timing in s', 'train_step_time')

HEADER = ('source,release,model,gpu,num_gpus,precision,gbs,mbs,seq_len,tp,pp,cp,ep,vp,num_layers_run,'
          'tokens_per_sec_per_gpu,model_tflops_per_gpu,step_time_s,task,fsdp,ga,tokens_per_sec_total,mfu_pct,'
          'status,model_as_written,system_as_written,notes,cuda_graph,moe_dispatcher,recompute_modules,'
          'moe_a2a_overlap,recipe_source,etp').split(',')


def repo_dir(r):
    return f'{MIRROR}/mlcommons+training_results_v{r}/repo'


def git(r, *args):
    return subprocess.run(['git', '-C', repo_dir(r)] + list(args), capture_output=True, text=True,
                          errors='replace').stdout


def show(r, path):
    return git(r, 'show', f'HEAD:{path}')


def gpu_name(acc):
    a = acc.upper()
    for k in ('GB300', 'GB200', 'B300', 'B200', 'H200', 'H100'):
        if k in a:
            return k
    return acc


def parse_log(text):
    recs = []
    for line in text.splitlines():
        i = line.find(':::MLLOG ')
        if i < 0:
            continue
        try:
            recs.append(json.loads(line[i + 9:]))
        except Exception:
            pass
    return recs


def source_config(files, cfg):
    """files: dict name->text of the implementation dir's *.sh; returns exported env of cfg."""
    tmp = tempfile.mkdtemp(dir=OUT, prefix='_cfg_')
    try:
        for n, t in files.items():
            with open(os.path.join(tmp, n), 'w') as f:
                f.write(t)
        cmd = f'cd "{tmp}" && source ./{cfg} >/dev/null 2>&1; env -0'
        p = subprocess.run(['env', '-i', 'PATH=/usr/bin:/bin', 'bash', '-c', cmd], capture_output=True)
        env = {}
        for kv in p.stdout.decode(errors='replace').split('\0'):
            if '=' in kv:
                k, v = kv.split('=', 1)
                env[k] = v
        return env
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def truthy(v):
    return str(v).strip().strip('"').lower() in ('1', 'true', 'yes')


def ival(env, k, default=None):
    v = env.get(k)
    if v in (None, '', 'null', 'None'):
        return default
    try:
        return int(v)
    except ValueError:
        return default


def analyze_file(recs, gbs, seq, bench):
    st = {}
    out = {}
    # per-step timing
    steps = []  # (time_s, meta_step)
    first_after_block = set()
    idx = 0
    in_block = False
    pending_block_start = False
    for r in recs:
        k = r.get('key')
        if k == 'block_start':
            pending_block_start = True
        if k == 'tracked_stats' and isinstance(r.get('value'), dict):
            v = r['value']
            key = next((kk for kk in STEP_KEYS if kk in v), None)
            if key:
                if pending_block_start:
                    first_after_block.add(idx)
                    pending_block_start = False
                steps.append((float(v[key]), (r.get('metadata') or {}).get('step'), key))
                idx += 1
    if steps:
        keep = [s[0] for i, s in enumerate(steps) if i >= SKIP_FIRST and i not in first_after_block]
        out['step_key'] = steps[0][2]
        out['n_steps_total'] = len(steps)
        out['n_steps_used'] = len(keep)
        out['step_median'] = statistics.median(keep) if keep else None
        out['step_mean'] = statistics.mean(keep) if keep else None
        incs = [b[1] - a[1] for a, b in zip(steps, steps[1:])
                if isinstance(a[1], (int, float)) and isinstance(b[1], (int, float)) and b[1] > a[1]]
        if incs:
            out['step_meta_inc'] = statistics.median(incs)
    # block timing
    blocks = []
    cur = None
    for r in recs:
        k = r.get('key')
        if k == 'block_start':
            cur = r
        elif k == 'block_stop' and cur is not None:
            md0, md1 = cur.get('metadata') or {}, r.get('metadata') or {}
            dur = (r['time_ms'] - cur['time_ms']) / 1000.0
            nsteps = None
            if bench == 'gpt3' and md0.get('epoch_count'):
                nsteps = md0['epoch_count'] / (gbs * seq)
            elif isinstance(md1.get('step'), (int, float)) and isinstance(md0.get('step'), (int, float)):
                nsteps = md1['step'] - md0['step']
            blocks.append((dur, nsteps))
            cur = None
    out['n_blocks'] = len(blocks)
    use = [b for b in blocks[1:] if b[1]]
    if use:
        out['block_step_time'] = sum(b[0] for b in use) / sum(b[1] for b in use)
        out['block_n'] = len(use)
        out['block_steps'] = sum(b[1] for b in use)
    # run time
    t0 = next((r['time_ms'] for r in recs if r.get('key') == 'run_start'), None)
    t1 = next((r['time_ms'] for r in recs if r.get('key') == 'run_stop'), None)
    if t0 and t1:
        out['run_min'] = (t1 - t0) / 60000.0
    return out


def main():
    rows, sources = [], []
    seen_blobs = {}
    for rnd in ROUNDS:
        if not os.path.isdir(repo_dir(rnd)):
            continue
        commit = git(rnd, 'rev-parse', 'HEAD').strip()
        base = f'https://github.com/mlcommons/training_results_v{rnd}'
        allfiles = git(rnd, 'ls-tree', '-r', '--name-only', 'HEAD').splitlines()
        folders = sorted({os.path.dirname(p) for p in allfiles
                          if re.match(r'^[^/]+/results/[^/]+/(gpt3|llama31_405b)/result_[^/]*\.txt$', p)})
        for fold in folders:
            org, _, system, bench = fold.split('/')
            if org in SKIP_ORGS:
                continue
            notes, status = [], 'ok'
            results = sorted(p for p in allfiles if os.path.dirname(p) == fold and
                             re.search(r'/result_[^/]*\.txt$', p))
            sysj = json.loads(show(rnd, f'{org}/systems/{system}.json') or '{}')
            nodes = int(sysj.get('number_of_nodes', 0) or 0)
            gpn = int(sysj.get('accelerators_per_node', 0) or 0)
            num_gpus = nodes * gpn
            fw = sysj.get('framework_name') or sysj.get('framework', '')
            # implementation dir(s)
            cfgs = [p for p in allfiles if p.startswith(f'{org}/benchmarks/{bench}/')
                    and re.search(r'/config_[^/]*\.sh$', p)]
            dirs = sorted({os.path.dirname(p) for p in cfgs})
            impl = next((d for d in dirs if os.path.basename(d) == system), None)
            if impl is None:  # e.g. UF 'hpg.dgxb200x8' for results 'hpg.dgxb200x8.n32'
                impl = next((d for d in dirs if system.startswith(os.path.basename(d))), None)
            if impl is None and len(dirs) > 1:  # e.g. Oracle: one dir per config, named like the config
                for d in dirs:
                    c = f'{d}/config_{os.path.basename(d)}.sh'
                    if c in allfiles and re.search(rf'DGXNNODES=\D*{nodes}\b', show(rnd, c)):
                        impl = d
                        notes.append(f'implementation dir chosen because config_{os.path.basename(d)}.sh sets DGXNNODES={nodes}')
            if impl is None and dirs:
                impl = dirs[0]
                if len(dirs) > 1:
                    notes.append(f'several implementation dirs {dirs}; used {impl}')
            # log basics from first file
            logs = {p: parse_log(show(rnd, p)) for p in results}
            # A run republished in a later round: the same logs, possibly without
            # the :::SYSJSON lines (v4.1's eos-dfw_n1452 is v4.0's so).
            blobs = frozenset(hashlib.sha256('\n'.join(
                l for l in show(rnd, p).splitlines() if not l.startswith(':::SYSJSON')
            ).encode()).hexdigest() for p in results)
            dup = seen_blobs.get(blobs)
            if dup:
                status = 'duplicate'
                notes.append(f'result files identical (apart from :::SYSJSON lines) to {dup}')
            else:
                seen_blobs[blobs] = f'v{rnd} {fold}'
            first = logs[results[0]]
            def lv(key, recs=first):
                return next((r.get('value') for r in recs if r.get('key') == key), None)
            gbs_log = lv('global_batch_size')
            seq_log = lv('max_sequence_length')
            bench_log = lv('submission_benchmark')
            platform = lv('submission_platform')
            ga_log = lv('gradient_accumulation_steps')
            env, cfg = {}, None
            yaml_def = {}
            if impl:
                files = {os.path.basename(p): show(rnd, p) for p in allfiles
                         if os.path.dirname(p) == impl and p.endswith('.sh')}
                # files sourced by configs but absent from this implementation dir: take them from a
                # sibling implementation dir of the same org/benchmark (noted)
                needed = set()
                for t in files.values():
                    needed |= set(re.findall(r'source\s+[^\n]*?/(config_[A-Za-z0-9_]+\.sh)', t))
                for n in sorted(needed - set(files)):
                    sib = next((d for d in dirs if d != impl and f'{d}/{n}' in allfiles), None)
                    if sib:
                        files[n] = show(rnd, f'{sib}/{n}')
                        notes.append(f'{n} missing from submitted dir, taken from sibling {sib}')
                        status = 'check'
                    else:
                        notes.append(f'{n} sourced by configs but missing from submission')
                ydirs = [impl] + [d for d in dirs if d != impl]
                for p in sorted(allfiles, key=lambda q: next((i for i, d in enumerate(ydirs) if q.startswith(d + '/')), 99)):
                    if any(p.startswith(d + '/') for d in ydirs) and p.endswith('.yaml'):
                        for k, v in re.findall(r'oc\.env:([A-Z0-9_]+),([A-Za-z0-9_.]+)\}', show(rnd, p)):
                            yaml_def.setdefault(k, v)
                # README naming the config
                for p in allfiles:
                    if os.path.dirname(p) == impl and re.search(r'README[^/]*\.md$', p):
                        m = re.search(r'hyperparameters for the\s+(\S+)\s+submission are in the\s+`[^`]*?(config_[^`/]+\.sh)`',
                                      show(rnd, p))
                        if m and m.group(1) == system:
                            cfg = m.group(2)
                            notes.append(f'config named in {os.path.basename(p)}')
                if cfg is None:
                    cands = []
                    for c in sorted(n for n in files if re.match(r'config_.*\.sh$', n)):
                        e = source_config(files, c)
                        nn, ng = ival(e, 'DGXNNODES'), ival(e, 'DGXNGPU', 8)
                        if nn != nodes or ng != gpn:
                            continue
                        tp_, pp_ = ival(e, 'TENSOR_MODEL_PARALLEL', 1), ival(e, 'PIPELINE_MODEL_PARALLEL', 1)
                        cp_ = ival(e, 'CONTEXT_PARALLEL', 1)
                        g = ival(e, 'GLOBAL_BATCH_SIZE') or (ival(e, 'MINIBS', 0) * (num_gpus // (tp_ * pp_ * cp_)))
                        if g == gbs_log:
                            cands.append(c)
                    if not cands:
                        # pass 2: same node count, gbs differs (MINIBS overridden at launch)
                        c2 = [c for c in sorted(n for n in files if re.match(r'config_.*\.sh$', n))
                              if ival(source_config(files, c), 'DGXNNODES') == nodes
                              and ival(source_config(files, c), 'DGXNGPU', 8) == gpn]
                        if len(c2) == 1:
                            cands = c2; status = 'check'
                            notes.append('only config with matching DGXNNODES; its MINIBS*dp does NOT give the logged gbs -> MINIBS was overridden at launch; layout taken from this config, gbs from log')
                    if not cands:
                        # pass 3: same GPUs/node and MINIBS*dp == logged gbs (DGXNNODES overridden at launch)
                        c3 = []
                        for c in sorted(n for n in files if re.match(r'config_.*\.sh$', n)):
                            e = source_config(files, c)
                            if ival(e, 'DGXNGPU', 8) != gpn or not ival(e, 'MINIBS'):
                                continue
                            tp_, pp_ = ival(e, 'TENSOR_MODEL_PARALLEL', 1), ival(e, 'PIPELINE_MODEL_PARALLEL', 1)
                            cp_ = ival(e, 'CONTEXT_PARALLEL', 1)
                            if num_gpus % (tp_ * pp_ * cp_) == 0 and ival(e, 'MINIBS') * (num_gpus // (tp_ * pp_ * cp_)) == gbs_log:
                                c3.append(c)
                        if len(c3) == 1:
                            cands = c3; status = 'check'
                            notes.append('no config for this node count; used the only config with same GPUs/node whose MINIBS*dp reproduces the logged gbs (DGXNNODES overridden at launch)')
                    if len(cands) == 1:
                        cfg = cands[0]
                        if status == 'ok':
                            notes.append('config chosen by matching DGXNNODES/DGXNGPU to system JSON and MINIBS*dp to logged global_batch_size')
                    elif cands:
                        cfg = cands[0]
                        status = 'check'
                        notes.append(f'AMBIGUOUS config: {cands}; used {cfg}')
                    else:
                        status = 'check'
                        notes.append('no config matched nodes+gbs')
                if cfg:
                    env = source_config(files, cfg)
            for k in ('TP_COMM_OVERLAP', 'FULL_CUDA_GRAPH', 'MCORE_CUDA_GRAPH', 'LAYER_CUDA_GRAPH'):
                if k not in env and k in yaml_def:
                    env[k] = yaml_def[k]
                    notes.append(f'{k} not set by config -> conf yaml default {yaml_def[k]}')
            tp = ival(env, 'TENSOR_MODEL_PARALLEL', 1)
            pp = ival(env, 'PIPELINE_MODEL_PARALLEL', 1)
            cp = ival(env, 'CONTEXT_PARALLEL', 1)
            vp = ival(env, 'INTERLEAVED_PIPELINE')
            if vp is None and 'INTERLEAVED_PIPELINE' in yaml_def:
                vp = int(yaml_def['INTERLEAVED_PIPELINE'])
                notes.append(f'INTERLEAVED_PIPELINE not set in config -> conf/custom.yaml default {vp}')
            mbs = ival(env, 'MICRO_BATCH_SIZE')
            minibs = ival(env, 'MINIBS')
            dp = num_gpus // (tp * pp * cp) if num_gpus else None
            gbs_cfg = ival(env, 'GLOBAL_BATCH_SIZE') or (minibs * dp if minibs and dp else None)
            gbs = gbs_log or gbs_cfg
            if gbs_cfg and gbs_log and gbs_cfg != gbs_log:
                status = 'check'
                notes.append(f'gbs config {gbs_cfg} != logged {gbs_log}')
            seq = seq_log or (2048 if bench == 'gpt3' else 8192)
            ga = None
            if gbs and dp and mbs:
                if gbs % (dp * mbs):
                    notes.append(f'gbs % (dp*mbs) != 0 (dp={dp}, mbs={mbs})'); status = 'check'
                else:
                    ga = gbs // (dp * mbs)
            nl = ival(env, 'OVERWRITTEN_NUM_LAYERS') or ival(env, 'NUM_LAYERS') or DEFAULT_LAYERS[bench]
            asym = truthy(env.get('ASYM_PP_EMBED')) and truthy(env.get('ASYM_PP_LOSS'))
            if vp:
                tot = nl + (2 if asym else 0)
                if tot % (pp * vp):
                    notes.append(f'num_layers {nl} not divisible by pp*vp={pp*vp}'); status = 'check'
                elif asym:
                    notes.append(f'vp ok only with ASYM_PP_EMBED/LOSS: ({nl}+2 embed/loss)/(pp*vp)={tot//(pp*vp)} layers per virtual stage')
                else:
                    notes.append(f'{nl // (pp * vp)} layer(s) per virtual stage')
            # precision
            if truthy(env.get('FP4')):
                rec = env.get('FP4_RECIPE', 'nvfp4').strip('"')
                prec = 'NVFP4' if 'nvfp4' in rec.lower() else rec.upper()
                notes.append(f'FP4=True FP4_RECIPE={rec}; NVTE_DPA_FP8_RECIPE={env.get("NVTE_DPA_FP8_RECIPE","")}')
            elif truthy(env.get('FP8')):
                rec = env.get('FP8_RECIPE', '').strip('"') or yaml_def.get('FP8_RECIPE', '')
                if 'mxfp8' in rec.lower():
                    prec = 'MXFP8'
                else:
                    prec = 'FP8-CS'
                    if not rec:
                        rec = 'delayed (no fp8_recipe knob in this round; amax-history scaling)'
                    notes.append(f'FP8 recipe {rec} (per-tensor scaling), FP8_HYBRID={env.get("FP8_HYBRID","")}, '
                                 f'FP8_AMAX_HISTORY={env.get("FP8_AMAX_HISTORY","")}')
            else:
                prec = 'BF16'
            # cuda graphs
            if truthy(env.get('FULL_CUDA_GRAPH')) or env.get('CUDA_GRAPH_SCOPE', '').strip('"') == 'full_iteration':
                cg = 'full'
            elif truthy(env.get('LAYER_CUDA_GRAPH')) or truthy(env.get('MCORE_CUDA_GRAPH')):
                cg = 'partial'
            else:
                cg = 'none'
            notes.append(f'TP_COMM_OVERLAP={env.get("TP_COMM_OVERLAP","unset")}')
            recompute = ''
            g = env.get('ACT_CKPT_GRANULARITY', '')
            if g not in ('', 'null', 'None'):
                recompute = f'act_ckpt {g}/{env.get("ACT_CKPT_METHOD","")}/{env.get("ACT_CKPT_NUM_LAYERS","")}'
                notes.append('activation recomputation set in config: ' + recompute)
            if ga_log is not None and ga is not None and int(float(ga_log)) != ga:
                notes.append(f'logged gradient_accumulation_steps={ga_log} vs gbs/(dp*mbs)={ga}')
            if bench_log != bench:
                notes.append(f'submission_benchmark in log = {bench_log}')
            # throughput
            per = {p: analyze_file(r, gbs, seq, bench) for p, r in logs.items()}
            st_files = [v['step_median'] for v in per.values() if v.get('step_median')]
            bl_files = [v['block_step_time'] for v in per.values() if v.get('block_step_time')]
            step_time = None
            if st_files:
                step_time = statistics.median(st_files)
                k = next(v['step_key'] for v in per.values() if v.get('step_key'))
                incs = sorted({v.get('step_meta_inc') for v in per.values() if v.get('step_meta_inc')})
                nused = [v['n_steps_used'] for v in per.values() if v.get('n_steps_used')]
                lab = ('= gbs*seq tokens' if incs and incs[0] == gbs * seq else '= gbs samples' if incs and incs[0] == gbs
                       else '= 1 step index' if incs and incs[0] == 1 else '?? CHECK')
                notes.append(f'throughput from tracked_stats "{k}" (one record per global step; metadata step increment {incs} '
                             f'{lab}), dropped first {SKIP_FIRST} steps of run and '
                             f'first step after each eval; per-file median over {nused} steps; median over {len(st_files)} '
                             f'result files (per-file step s: {", ".join(f"{x:.3f}" for x in st_files)})')
                if bl_files:
                    bt = statistics.median(bl_files)
                    notes.append(f'cross-check block timing (blocks 2..n, eval excluded): {bt:.3f} s/step '
                                 f'({(bt/step_time-1)*100:+.1f}% vs step key)')
            elif bl_files:
                step_time = statistics.median(bl_files)
                nb = [v.get('block_n') for v in per.values()]
                notes.append(f'NO per-step key in logs: step time from block_start/block_stop timing (eval excluded), '
                             f'blocks 2..n ({nb} blocks/file), steps per block = epoch_count/(gbs*seq); median over '
                             f'{len(bl_files)} result files (per-file s/step: {", ".join(f"{x:.3f}" for x in bl_files)})')
            else:
                status = 'check'; notes.append('no timing found')
            tps = gbs * seq / step_time / num_gpus if step_time and num_gpus else None
            mtf = ''
            if tps and env.get('MODEL_TFLOP_PER_SAMPLE'):
                mtf = round(float(env['MODEL_TFLOP_PER_SAMPLE']) * gbs / step_time / num_gpus, 1)
                notes.append(f'model_tflops_per_gpu from config MODEL_TFLOP_PER_SAMPLE={env["MODEL_TFLOP_PER_SAMPLE"]}')
            if platform:
                notes.append(f'log submission_platform="{platform}"')
                if gpu_name(sysj.get('accelerator_model_name', '')) not in platform.upper() and 'PLACEHOLDER' not in platform:
                    notes.append(f'NOTE log platform string disagrees with system JSON accelerator '
                                 f'({sysj.get("accelerator_model_name")}); GPU taken from system JSON and config name')
            runm = [round(v['run_min'], 1) for v in per.values() if v.get('run_min')]
            notes.append(f'run_start..run_stop minutes per file: {runm}')
            cfg_url = f'{base}/blob/{commit}/{impl}/{cfg}' if cfg else ''
            rows.append({
                'source': f'{base}/tree/{commit}/{fold}',
                'release': f'MLPerf Training v{rnd} ({fw})',
                'model': BENCH[bench], 'gpu': gpu_name(sysj.get('accelerator_model_name', '')),
                'num_gpus': num_gpus, 'precision': prec, 'gbs': gbs, 'mbs': mbs, 'seq_len': seq,
                'tp': tp, 'pp': pp, 'cp': cp, 'ep': 1, 'vp': vp or 1, 'num_layers_run': nl,
                'tokens_per_sec_per_gpu': round(tps, 1) if tps else '',
                'model_tflops_per_gpu': mtf, 'step_time_s': round(step_time, 4) if step_time else '',
                'task': 'pretrain', 'fsdp': '', 'ga': '',
                'tokens_per_sec_total': round(tps * num_gpus) if tps else '', 'mfu_pct': '',
                'status': status, 'model_as_written': bench_log or bench,
                'system_as_written': sysj.get('system_name', system),
                'notes': f'org={org}; config={cfg}; nodes={nodes}x{gpn}; dp={dp}; MINIBS={minibs}; '
                         f'INTERLEAVED_PIPELINE->virtual_pipeline_model_parallel_size (virtual stages per pp rank); '
                         f'ga(per dp rank, microbatches)={ga}; ' + '; '.join(notes),
                'cuda_graph': cg, 'moe_dispatcher': '', 'recompute_modules': recompute,
                'moe_a2a_overlap': '', 'recipe_source': cfg_url, 'etp': ''})
            sources.append((rows[-1], cfg_url, [f'{base}/blob/{commit}/{p}' for p in results], impl))
            print(rnd, fold, cfg, num_gpus, tp, pp, cp, vp, mbs, gbs, prec, cg,
                  round(step_time, 3) if step_time else None, round(tps, 1) if tps else None, status, file=sys.stderr)
    fields = HEADER[:2] + ['mlperf_round'] + HEADER[2:] + ['recompute']
    with open(f'{OUT}/mlperf_training.csv', 'w', newline='') as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator='\n')
        w.writeheader()
        for r in rows:
            if r['status'] == 'duplicate':
                continue
            w.writerow(dict(r, release='', mlperf_round=r['release'],
                             recompute='' if r['recompute_modules'] else 'none'))
    with open(f'{OUT}/SOURCES.md', 'w') as f:
        f.write('# Sources for mlperf_training.csv\n\nGenerated by extract_mlperf.py from snapshots of '
                'github.com/mlcommons/training_results_v* (commit ids in URLs). All result files listed were read. '
                'Sections marked (duplicate) are not in the CSV: their result files are identical to an '
                'earlier round\'s apart from the :::SYSJSON lines.\n\n')
        for i, (r, cu, res, impl) in enumerate(sources, 1):
            dup = ' (duplicate)' if r['status'] == 'duplicate' else ''
            f.write(f'## {i}. {r["release"]} | {r["system_as_written"]} | {r["model"]} | {r["num_gpus"]} GPUs{dup}\n')
            f.write(f'- results folder: {r["source"]}\n- config: {cu or "NOT FOUND"}\n')
            f.write(f'- implementation dir: {impl}\n- result files read:\n')
            for u in res:
                f.write(f'  - {u}\n')
            f.write('\n')


if __name__ == '__main__':
    main()
