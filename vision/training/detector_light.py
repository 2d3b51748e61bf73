"""``python -m vision.training.detector_light [STEPS [OUT_DIR [ARCH ...]]]``: lighter die detectors.

The committed detector (``die_detect.onnx``, :func:`vision.training.faces.make_detector`: four full
3 x 3 convolutions of 12-16 channels on the 0.5 px/mm top view) costs ~1.3 ms of the dice stage's
~8 ms at 720p on one core.  The nets here keep its input (:func:`vision.dice.detect.net_input`), its
output (score logit, dx, dy per 8 mm cell, stride 4) and its training recipe
(:func:`vision.training.faces.detector_frames` of the same two render folders, the batches of
:func:`vision.training.faces.detector_step`: crops, augmentation, focal + offset loss; AdamW with a
one-cycle rate, seed 7) and spend fewer operations:

- ``dw``: 3 -> 8 (stride 2), 8 -> 16 (stride 2), then two depthwise-separable 16 -> 16 blocks
  (~0.7 ms on a 288 x 422 top view against 1.35 ms);
- ``p4``: one 4 x 4 stride-4 convolution 3 -> 16 (each output cell sees its own 8 mm), then two
  depthwise-separable blocks (~0.3 ms).

- ``t2dw``: the committed net's two strided layers, then two separable blocks (~0.84 ms).

Session 7, none adopted: dice of seen 900340-900459 (240) with a peak within 8 mm among the 8 best at
score 0.2 or more (the stage's candidates), and non-die peaks among them: committed 227 / 555;
``dw`` 192 / 633, ``p4`` 96 / 816 (1500 steps each on 840 frames); ``dw`` then distilled 800 steps
203 / 498; ``t2dw`` distilled 600 steps from the committed layers 197 / 490.  The light nets would
save ~0.6-1.0 ms of the dice stage; they need more than this recipe's 1500 steps on 840 frames.

Several nets are trained side by side on the same batches (one batch stream, the expensive part,
for all): each net's weights are seeded alone (``torch.manual_seed(seed)`` before it is built), so
each is the net that training it alone with this seed would give.  Torch is development-only.
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ARCHS = ("dw", "p4", "t2dw")
"""The nets :func:`make_light_detector` builds."""


def make_light_detector(arch: str) -> Any:
    """A detector net of :data:`ARCHS` (torch ``nn.Sequential``; output (B, 3, H/4, W/4))."""
    import torch.nn as tnn

    def block(i: int, o: int, s: int = 1, groups: int = 1, k: int = 3) -> list[tnn.Module]:
        return [tnn.Conv2d(i, o, k, s, k // 2, groups=groups, bias=False), tnn.BatchNorm2d(o), tnn.ReLU()]

    def separable(i: int, o: int) -> list[tnn.Module]:
        return block(i, i, 1, i) + block(i, o, 1, 1, 1)

    if arch == "dw":
        return tnn.Sequential(*block(3, 8, 2), *block(8, 16, 2), *separable(16, 16), *separable(16, 16), tnn.Conv2d(16, 3, 1))
    if arch == "t2dw":  # the committed net's two strided layers, then two separable blocks
        return tnn.Sequential(*block(3, 12, 2), *block(12, 16, 2), *separable(16, 16), *separable(16, 16), tnn.Conv2d(16, 3, 1))
    if arch == "p4":
        stem = [tnn.Conv2d(3, 16, 4, 4, 0, bias=False), tnn.BatchNorm2d(16), tnn.ReLU()]
        return tnn.Sequential(*stem, *separable(16, 16), *separable(16, 16), tnn.Conv2d(16, 3, 1))
    raise ValueError(f"unknown detector net {arch!r} (one of {', '.join(ARCHS)})")


def train_light(out_dir: Path, archs: tuple[str, ...] = ARCHS, *, steps: int = 1500, batch: int = 24,
                seed: int = 7) -> dict[str, dict[str, object]]:
    """Train the nets ``archs`` side by side on the committed detector's data and batches; export
    ``OUT_DIR/die_detect_ARCH.onnx`` and its ``.train.json`` record each."""
    import torch

    from vision.training.faces import DICE_RENDERS, _detector_batch, detector_frames, detector_loss
    from vision.training.fit import export_onnx
    from vision.training.rendered import cache_dir

    torch.set_num_threads(1)
    rng = random.Random(seed)
    t0 = time.time()
    folders = [cache_dir() / "1280x720", cache_dir() / DICE_RENDERS / "1280x720"]
    frames = detector_frames(folders)
    n_dice = sum(len(p) for _, p, _ in frames)
    print(f"{len(frames)} frames, {n_dice} dice in {time.time() - t0:.0f}s", flush=True)
    models, opts, scheds = [], [], []
    for arch in archs:
        torch.manual_seed(seed)
        m = make_light_detector(arch)
        o = torch.optim.AdamW(m.parameters(), lr=4e-3, weight_decay=1e-4)
        models.append(m)
        opts.append(o)
        scheds.append(torch.optim.lr_scheduler.OneCycleLR(o, max_lr=4e-3, total_steps=steps))
    run = [0.0] * len(archs)
    for step in range(steps):
        xb, tb = _detector_batch(frames, rng, batch)  # the batch detector_step draws
        x, t = torch.from_numpy(xb), torch.from_numpy(tb)
        for k, (m, o, s) in enumerate(zip(models, opts, scheds, strict=True)):
            m.train()
            loss = detector_loss(m(x), t)
            o.zero_grad()
            loss.backward()
            o.step()
            s.step()
            run[k] = 0.98 * run[k] + 0.02 * float(loss.detach())
        if (step + 1) % 100 == 0:
            print(f"step {step + 1}/{steps} " + " ".join(f"{a} {r:.4f}" for a, r in zip(archs, run, strict=True))
                  + f" {time.time() - t0:.0f}s", flush=True)
    records: dict[str, dict[str, object]] = {}
    seeds = sorted({s for _, _, s in frames})
    for arch, m in zip(archs, models, strict=True):
        m.eval()
        out = out_dir / f"die_detect_{arch}.onnx"
        export_onnx(m, torch.zeros(1, 3, 128, 128), out, input_name="top", output_name="heat",
                    dynamic_axes={"top": {2: "h", 3: "w"}, "heat": {2: "h", 3: "w"}})
        rec: dict[str, object] = {
            "model": out.name, "recipe": f"python -m vision.training.detector_light {steps} OUT_DIR {arch}",
            "net": arch, "seed": seed, "steps": steps, "batch": batch, "crop": 128, "frames": len(frames),
            "dice": n_dice, "folders": [str(f) for f in folders], "seeds": seeds[:1] + seeds[-1:],
            "trained_alongside": [a for a in archs if a != arch], "seconds": round(time.time() - t0),
            "torch": torch.__version__,
        }
        out.with_suffix(".train.json").write_text(json.dumps(rec, indent=2) + "\n")
        records[arch] = rec
    return records


def distill(start: Path, arch: str, out: Path, *, steps: int = 1200, batch: int = 24, seed: int = 7,
            lr: float = 2e-3, cache: Path | None = None) -> dict[str, object]:
    """``python -m vision.training.detector_light distill START.onnx ARCH OUT.onnx [STEPS]``: the light
    net ``arch`` (its weights from ``start``, an export of :func:`train_light`) taught by the committed
    detector (``die_detect.onnx``, onnxruntime) on the training recipe's batches: the teacher's score
    map (binary cross-entropy on its sigmoid) and, on cells the teacher scores 0.1 or more, its centre
    offsets (L1), plus the recipe's own loss on the labels (:func:`vision.training.faces.detector_loss`)."""
    import torch

    from vision.dice.detect import DIE_DETECT_MODEL
    from vision.preprocess import onnx_session
    from vision.training.faces import DICE_RENDERS, _detector_batch, detector_frames, detector_loss
    from vision.training.fit import export_onnx
    from vision.training.rendered import cache_dir

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    rng = random.Random(seed + 1)
    t0 = time.time()
    model = make_light_detector(arch)
    if start == DIE_DETECT_MODEL:  # its strided layers; the rest is learnt
        load_folded(model, start, first=2)
    else:
        load_folded(model, start)
    teacher = onnx_session(DIE_DETECT_MODEL)
    folders = [cache_dir() / "1280x720", cache_dir() / DICE_RENDERS / "1280x720"]
    frames = detector_frames(folders, cache)
    print(f"{len(frames)} frames in {time.time() - t0:.0f}s", flush=True)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.1)
    bce = torch.nn.BCEWithLogitsLoss()
    run = 0.0
    for step in range(steps):
        xb, tb = _detector_batch(frames, rng, batch)
        ty = torch.from_numpy(np.concatenate([np.asarray(teacher.run(None, {"top": xb[i : i + 1]})[0], np.float32)
                                              for i in range(len(xb))]))  # the export takes one image
        model.train()
        for m in model:  # batch norm holds the folded weights' statistics (an affine layer)
            if isinstance(m, torch.nn.BatchNorm2d):
                m.eval()
        y = model(torch.from_numpy(xb))
        ts = torch.sigmoid(ty[:, 0])
        mask = (ts >= 0.1).float()
        loff = (torch.abs(y[:, 1:3] - ty[:, 1:3]) * mask[:, None]).sum() / mask.sum().clamp(min=1.0)
        loss = 20 * bce(y[:, 0], ts) + loff + 0.1 * detector_loss(y, torch.from_numpy(tb))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        run = 0.98 * run + 0.02 * float(loss.detach())
        if (step + 1) % 100 == 0:
            print(f"step {step + 1}/{steps} loss {run:.4f} {time.time() - t0:.0f}s", flush=True)
    model.eval()
    export_onnx(model, torch.zeros(1, 3, 128, 128), out, input_name="top", output_name="heat",
                dynamic_axes={"top": {2: "h", 3: "w"}, "heat": {2: "h", 3: "w"}})
    rec: dict[str, object] = {
        "model": out.name, "recipe": f"python -m vision.training.detector_light distill {start.name} {arch} OUT {steps}",
        "net": arch, "start": start.name if start == DIE_DETECT_MODEL else json.loads(start.with_suffix(".train.json").read_text()),
        "teacher": DIE_DETECT_MODEL.name, "seed": seed, "steps": steps, "batch": batch, "lr": lr, "frames": len(frames),
        "folders": [str(f) for f in folders], "seconds": round(time.time() - t0), "torch": torch.__version__,
    }
    out.with_suffix(".train.json").write_text(json.dumps(rec, indent=2) + "\n")
    return rec


def load_folded(model: Any, path: Path, first: int | None = None) -> None:
    """Load an exported light net's weights (batch norm folded into the convolutions by the export)
    into ``model``: each Conv gets the folded weight and its BatchNorm becomes the identity plus the
    folded bias (``first``: only the first this many convolutions, e.g. the committed detector's
    strided layers into ``t2dw``)."""
    import onnx
    import torch
    from onnx import numpy_helper
    from torch import nn

    g = onnx.load(str(path)).graph
    init = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    convs = [(init[n.input[1]], init[n.input[2]] if len(n.input) > 2 else None) for n in g.node if n.op_type == "Conv"]
    mods = list(model)
    k = 0
    with torch.no_grad():
        for j, m in enumerate(mods):
            if not isinstance(m, nn.Conv2d):
                continue
            if first is not None and k >= first:
                break
            w, b = convs[k]
            k += 1
            m.weight.copy_(torch.from_numpy(w.copy()))
            bn = mods[j + 1] if j + 1 < len(mods) and isinstance(mods[j + 1], nn.BatchNorm2d) else None
            if bn is None:
                if m.bias is not None and b is not None:
                    m.bias.copy_(torch.from_numpy(b.copy()))
                continue
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(b.copy()) if b is not None else torch.zeros_like(bn.bias))
    if first is None and k != len(convs):
        raise ValueError(f"{path} has {len(convs)} convolutions, the net {k}")


if __name__ == "__main__":
    a = sys.argv[1:]
    if a and a[0] == "distill":
        print(distill(Path(a[1]), a[2], Path(a[3]), steps=int(a[4]) if len(a) > 4 else 1200,
                      cache=Path(a[5]) if len(a) > 5 else None))
        raise SystemExit(0)
    n = int(a[0]) if a else 1500
    where = Path(a[1]) if len(a) > 1 else Path("/tmp/die_detect_light")
    print(train_light(where, tuple(a[2:]) or ARCHS, steps=n))
