"""``python -m vision.training.detector_centre [STEPS [OUT]]``: the die centre model (``die_centre.onnx``).

The detector's centre of a die is ~2 mm off on average and 5-10 mm off beside a checker or the other
die, and the face and pose models read worse off-centre.  This small net looks at the window of
:func:`vision.dice.detect.centre_windows` around a candidate (32 mm of board on the plane of the
die's top) and regresses the offset to the die's centre.

Samples: every die of the rendered training frames (``TRAIN_SEEDS`` of :data:`FOLDERS` in the render
cache), each :data:`COPIES` times from a candidate moved off its centre (half uniformly within
:data:`MAX_OFF_MM`, half Gaussian with sigma 3 mm: the detector's errors); seeds whose last digit is
0 are the validation split.  Training turns and mirrors the windows (the offset with them).
Torch is a development-only dependency (seeded, one thread).
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

FOLDERS = ("1280x720", "dice_cocked/1280x720", "dice_train/1280x720", "slots_1280x720", "trays_1280x720",
           "cube_side_train")
COPIES = 4
MAX_OFF_MM = 10.0


def samples(root: Path, *, seed: int = 7, max_frames: int = 4000) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(windows (N, 1, P, P) float32, targets (N, 2) in half windows, validation mask)."""
    from vision.dice.detect import centre_window_mm, centre_windows
    from vision.training.rendered import TRAIN_SEEDS, profile_for

    rng = np.random.default_rng(seed)
    files = []
    for name in FOLDERS:
        for js in sorted((root / name).glob("*.json")):
            head = js.stem.split("_")[0]
            if head.isdigit() and int(head) in TRAIN_SEEDS:
                files.append((js, int(head)))
    random.Random(seed).shuffle(files)
    files = files[:max_frames]
    xs, ts, val = [], [], []
    t0 = time.time()
    for n, (js, s) in enumerate(files):
        truth = json.loads(js.read_text())
        if not truth["dice"]:
            continue
        img = cv2.imread(str(js.with_suffix(".png")), cv2.IMREAD_GRAYSCALE)
        if img is None:
            continue
        gray = np.asarray(img, np.uint8)
        prof = profile_for(truth)
        dmin, dmax = prof.spec.die_size_mm
        z = (dmin + dmax) / 2
        half = centre_window_mm(z) / 2
        true = np.array([d["center_mm"][:2] for d in truth["dice"]], np.float64)
        k = len(true) * COPIES
        r = np.where(rng.random(k) < 0.5, MAX_OFF_MM * np.sqrt(rng.random(k)), np.abs(rng.normal(0, 3.0, k)))
        a = rng.uniform(0, 2 * np.pi, k)
        off = np.stack([r * np.cos(a), r * np.sin(a)], axis=1)
        tc = np.repeat(true, COPIES, axis=0)
        xs.append(centre_windows(gray, prof, tc + off, z))
        ts.append((-off / half).astype(np.float32))
        val.extend([s % 10 == 0] * k)
        if (n + 1) % 500 == 0:
            print(f"{n + 1}/{len(files)} frames {time.time() - t0:.0f}s", flush=True)
    return np.concatenate(xs), np.concatenate(ts), np.array(val)


def make_model(nn: Any) -> Any:
    def block(i: int, o: int, s: int) -> list[Any]:
        return [nn.Conv2d(i, o, 3, s, 1), nn.ReLU()]

    return nn.Sequential(*block(1, 16, 1), *block(16, 32, 2), *block(32, 32, 2), *block(32, 32, 2),
                         nn.Flatten(), nn.Linear(32 * 4 * 4, 64), nn.ReLU(), nn.Linear(64, 2))


def augment(x: np.ndarray, t: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The same random mirror / transpose of each window and its offset (the 8 turns and mirrors)."""
    x, t = x.copy(), t.copy()
    lr, ud, tr = (rng.random(len(x)) < 0.5 for _ in range(3))
    x[lr] = x[lr][..., ::-1]
    t[lr, 0] *= -1
    x[ud] = x[ud][..., ::-1, :]
    t[ud, 1] *= -1
    x[tr] = np.swapaxes(x[tr], 2, 3)
    t[tr] = t[tr][:, ::-1]
    return x, t


def train(out: Path, *, steps: int = 3000, seed: int = 7, batch: int = 128, root: Path | None = None,
          cache: Path | None = None) -> dict[str, object]:
    """Train the centre model on :func:`samples` (``cache``: an .npz keeping them for repeated runs);
    export ONNX + its record."""
    import torch
    from torch import nn

    from vision.training.fit import export_onnx
    from vision.training.rendered import cache_dir

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    t0 = time.time()
    if cache is not None and cache.is_file():
        z = np.load(cache)
        x, t, val = z["x"], z["t"], z["val"]
    else:
        x, t, val = samples(root or cache_dir(), seed=seed)
        if cache is not None:
            np.savez(cache, x=x, t=t, val=val)
    xtr, ttr, xva, tva = x[~val], t[~val], x[val], t[val]
    print(f"{len(xtr)} training, {len(xva)} validation windows in {time.time() - t0:.0f}s", flush=True)
    model = make_model(nn)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-3, total_steps=steps)
    run = 0.0
    for step in range(steps):
        idx = rng.integers(0, len(xtr), batch)
        xb, tb = augment(xtr[idx], ttr[idx], rng)
        model.train()
        loss = nn.functional.smooth_l1_loss(model(torch.from_numpy(xb)), torch.from_numpy(tb), beta=0.05)
        opt.zero_grad()
        loss.backward()  # type: ignore[no-untyped-call]
        opt.step()
        sched.step()
        run = 0.98 * run + 0.02 * float(loss.detach())
        if (step + 1) % 250 == 0:
            print(f"step {step + 1}/{steps} loss {run:.4f} {time.time() - t0:.0f}s", flush=True)
    model.eval()
    half = 16 * 1.15 * 1.75 / 2  # a 16 mm die's half window, for the record in mm
    with torch.no_grad():
        pred = np.concatenate([model(torch.from_numpy(xva[i:i + 512])).numpy() for i in range(0, len(xva), 512)])
    err = np.linalg.norm(pred - tva, axis=1) * half
    before = np.linalg.norm(tva, axis=1) * half
    export_onnx(model, torch.zeros(1, 1, 32, 32), out, input_name="window", output_name="offset")
    record: dict[str, object] = {
        "model": out.name, "recipe": "python -m vision.training.detector_centre", "seed": seed, "steps": steps,
        "batch": batch, "folders": list(FOLDERS), "copies": COPIES, "max_off_mm": MAX_OFF_MM,
        "train_windows": len(xtr), "validation_windows": len(xva), "validation": "training seeds % 10 == 0",
        "validation_error_mm_16mm_die": {"median_before": round(float(np.median(before)), 2),
                                          "median_after": round(float(np.median(err)), 2),
                                          "p90_after": round(float(np.percentile(err, 90)), 2)},
        "seconds": round(time.time() - t0), "torch": torch.__version__,
    }
    out.with_suffix(".train.json").write_text(json.dumps(record, indent=2) + "\n")
    return record


if __name__ == "__main__":
    from vision.dice.detect import DIE_CENTRE_MODEL

    a = sys.argv[1:]
    print(train(Path(a[1]) if len(a) > 1 else DIE_CENTRE_MODEL, steps=int(a[0]) if a else 3000,
                cache=Path(a[2]) if len(a) > 2 else None))
