#!/usr/bin/env python3
"""Loads synth's exports with their consumers' own loading code.

Run by scripts/check_consumers.sh (which makes the virtual environment and the
exports); by hand:

    python scripts/check_consumers.py --exports DIR [--agent-studio CHECKOUT] [--absolute]

DIR holds one folder per format, as `synth export --format F --out DIR/F` writes
them. With `--absolute` the exports were written with `--image-paths absolute`:
every image reference must then be an absolute path, and each consumer loads them
without being told where the export is (LLaMA-Factory with `media_dir` an empty
folder elsewhere, ms-swift without `ROOT_IMAGE_DIR`). Each check prints how many records its consumer loaded and the code path it
went through, then the script ends with the line `N passed, M failed` (one count
per format). A format whose consumer is not installed (or, for AgentStudio, whose
checkout is not given) is reported as skipped, not passed.

Consumers:
- sharegpt: LLaMA-Factory (PyPI `llamafactory`): dataset_info.json through its
  parser, `_load_single_dataset` (sharegpt converter, media_dir resolution), then
  the multimodal plugin's image-token check, from another working directory.
- qwen: ms-swift (PyPI `ms-swift`): `swift.dataset.load_dataset` and its image
  path resolution (ROOT_IMAGE_DIR), from another working directory.
- openai: the `openai` package's message types (validated with pydantic) and the
  vision fine-tuning rules of OpenAI's guide (images only in user messages, as
  http(s) or base64 data URLs of PNG/JPEG/WEBP, at most 10 MB, at most 64 an
  example; an assistant message to learn).
- grounding, idm, critic: AgentStudio's evaluation code (`GUIGroundingEval`,
  `IDMSingleEval`, `SuccessDetectionEval` in `eval_agent_desiderata/`, and the
  pydantic models `InverseAction` and `Episode`) from a checkout of its repository
  (it is not on PyPI), run on every row with a stand-in model that opens every
  image the eval hands it.
- osworld: the task files against OSWorld's rules that its harness applies
  (evaluator list lengths, setup step types, upload paths that exist from another
  working directory, related_apps ids); with PyPI `desktop-env` (OSWorld's
  package) installed, also its metric and getter names, and its SetupController
  running each task's config against a stand-in VM server on 127.0.0.1 that
  checks every file arrives.
- omnibench: appendix C's field names and node ids (no consumer package).
"""

import argparse
import importlib
import json
import os
import sys
import tempfile
import traceback
from pathlib import Path

# Set by --absolute: the exports were written with `--image-paths absolute`.
ABSOLUTE = False


def jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


class Result:
    def __init__(self, name):
        self.name = name
        self.loaded = 0
        self.total = 0
        self.errors = []
        self.how = ""
        self.skipped = None

    def fail(self, what):
        if len(self.errors) < 5:
            self.errors.append(what)
        else:
            self.errors.append(None)

    def ok(self):
        return self.skipped is None and not self.errors and self.loaded == self.total and self.total > 0

    def report(self):
        if self.skipped:
            print(f"{self.name}: skipped ({self.skipped})")
            return
        state = "ok" if self.ok() else "FAILED"
        print(f"{self.name}: {state}, {self.loaded} of {self.total} records loaded by {self.how}")
        shown = [e for e in self.errors if e is not None]
        for e in shown:
            print(f"  {e}")
        if len(self.errors) > len(shown):
            print(f"  ... {len(self.errors)} errors in all")


def elsewhere():
    """A working directory that is not the export's, as a user's would be."""
    d = tempfile.mkdtemp(prefix="synth-consumer-")
    os.chdir(d)
    return d


# --- sharegpt: LLaMA-Factory ---------------------------------------------------

def check_sharegpt(root, r):
    try:
        import llamafactory
        from llamafactory.data.loader import _load_single_dataset
        from llamafactory.data.mm_plugin import get_mm_plugin
        from llamafactory.data.parser import get_dataset_list
        from llamafactory.hparams import DataArguments, ModelArguments
        from transformers import Seq2SeqTrainingArguments
    except ImportError as e:
        r.skipped = f"llamafactory not importable: {e}"
        return
    elsewhere()
    info = json.loads((root / "dataset_info.json").read_text())
    names = list(info)
    r.total = len(json.loads((root / info[names[0]]["file_name"]).read_text()))
    if ABSOLUTE:
        # Nothing tells LLaMA-Factory where the export is: media_dir is elsewhere.
        data_args = DataArguments(dataset=names, dataset_dir=str(root), media_dir=tempfile.mkdtemp())
    else:
        data_args = DataArguments(dataset=names, dataset_dir=str(root))
    model_args = ModelArguments(model_name_or_path="unused")
    training_args = Seq2SeqTrainingArguments(output_dir=tempfile.mkdtemp(), report_to=[])
    attrs = get_dataset_list(names, data_args.dataset_dir)
    ds = _load_single_dataset(attrs[0], model_args, data_args, training_args)
    plugin = get_mm_plugin("qwen2_vl", image_token="<|image_pad|>")
    for i, ex in enumerate(ds):
        try:
            images = ex["_images"] or []
            for img in images:
                if ABSOLUTE and not os.path.isabs(img):
                    raise ValueError(f"image {img} is not absolute")
                if not os.path.isfile(img):
                    raise ValueError(f"image {img} does not resolve")
            plugin._validate_messages(ex["_prompt"] + ex["_response"], images, [], [])
            r.loaded += 1
        except Exception as e:
            r.fail(f"example {i}: {e}")
    r.how = (
        f"llamafactory {llamafactory.__version__} (parser.get_dataset_list, "
        + ("loader._load_single_dataset with media_dir an unrelated folder, " if ABSOLUTE
           else "loader._load_single_dataset with media_dir = dataset_dir, ")
        + "mm_plugin._validate_messages)"
    )


# --- qwen: ms-swift -------------------------------------------------------------

def check_qwen(root, r):
    try:
        import swift
        from swift.dataset import load_dataset
        from swift.template.vision_utils import load_image
    except ImportError as e:
        r.skipped = f"ms-swift not importable: {e}"
        return
    elsewhere()
    if ABSOLUTE:
        os.environ.pop("ROOT_IMAGE_DIR", None)
    else:
        os.environ["ROOT_IMAGE_DIR"] = str(root)
    data = root / "data.json"
    r.total = len(json.loads(data.read_text()))
    train, _ = load_dataset([str(data)], split_dataset_ratio=0.0, num_proc=1)
    for i, row in enumerate(train):
        try:
            images = row.get("images") or []
            if len(images) != 1:
                raise ValueError(f"{len(images)} images")
            for img in images:
                path = img["path"] if isinstance(img, dict) else img
                if ABSOLUTE and not os.path.isabs(path):
                    raise ValueError(f"image {path} is not absolute")
                load_image(path).load()
            tokens = sum(m["content"].count("<image>") for m in row["messages"])
            if tokens != len(images):
                raise ValueError(f"{tokens} <image> tokens for {len(images)} images")
            r.loaded += 1
        except Exception as e:
            r.fail(f"row {i}: {e}")
    r.how = (
        f"ms-swift {swift.__version__} (swift.dataset.load_dataset, "
        + ("vision_utils.load_image without ROOT_IMAGE_DIR)" if ABSOLUTE
           else "vision_utils.load_image with ROOT_IMAGE_DIR = the export folder)")
    )


# --- openai ------------------------------------------------------------------------

def check_openai(root, r):
    try:
        import base64

        import openai
        from openai.types.chat import ChatCompletionMessageParam
        from pydantic import TypeAdapter
    except ImportError as e:
        r.skipped = f"openai or pydantic not importable: {e}"
        return
    messages_type = TypeAdapter(list[ChatCompletionMessageParam])
    lines = jsonl(root / "data.jsonl")
    r.total = len(lines)
    if (root / "images").exists() and "data:image/" in (root / "data.jsonl").read_text()[:100000]:
        r.fail("an images/ folder is left beside data URLs")
    for i, line in enumerate(lines):
        try:
            if set(line) != {"messages"}:
                raise ValueError(f"keys {sorted(line)}")
            messages_type.validate_python(line["messages"])
            images = 0
            for m in line["messages"]:
                if isinstance(m["content"], str):
                    continue
                for part in m["content"]:
                    if part["type"] != "image_url":
                        continue
                    images += 1
                    if m["role"] != "user":
                        raise ValueError(f"an image in a {m['role']} message")
                    url = part["image_url"]["url"]
                    if url.startswith("data:"):
                        head, _, b64 = url.partition(",")
                        if head not in (
                            "data:image/png;base64",
                            "data:image/jpeg;base64",
                            "data:image/webp;base64",
                        ):
                            raise ValueError(f"data URL {head}")
                        raw = base64.b64decode(b64, validate=True)
                        if len(raw) > 10 * 1024 * 1024:
                            raise ValueError("image over 10 MB")
                        if not raw.startswith(b"\x89PNG"):
                            raise ValueError("data URL is not a PNG")
                    elif not url.startswith(("https://", "http://")):
                        raise ValueError(f"image URL {url[:60]} is neither http(s) nor data")
            if images > 64:
                raise ValueError(f"{images} images (at most 64)")
            if not any(m["role"] == "assistant" for m in line["messages"]):
                raise ValueError("no assistant message")
            r.loaded += 1
        except Exception as e:
            r.fail(f"line {i + 1}: {e}")
    r.how = (
        f"openai {openai.__version__} (ChatCompletionMessageParam through pydantic) "
        "and the vision fine-tuning rules"
    )


# --- AgentStudio: grounding, idm, critic ----------------------------------------

class StandInModel:
    """Answers every query; opens every image the eval hands it."""

    def __init__(self, answer):
        self.answer = answer
        self.images = 0

    def generate_response(self, messages, **kwargs):
        from PIL import Image

        for m in messages:
            content = m.content if hasattr(m, "content") else m["content"]
            if isinstance(content, Path):
                with Image.open(content) as im:
                    im.load()
                self.images += 1
        return self.answer, {}


def agent_studio(checkout):
    checkout = Path(checkout).resolve()
    for p in (checkout, checkout / "eval_agent_desiderata"):
        if str(p) not in sys.path:
            sys.path.insert(0, str(p))
    os.environ["debug"] = "1"  # map_with_progress runs rows in order, in this thread
    os.environ["TQDM_DISABLE"] = "1"


def row_images(row):
    """The image references of an AgentStudio row (grounding, idm or critic)."""
    if "image" in row:
        return [row["image"]]
    steps = row["actions"] if "actions" in row else [row]
    return [p for a in steps for p in (a["obs_before"], a["obs_after"]) if p is not None]


def run_agent_studio(root, r, checkout, module, cls, file, answer, model_cls):
    if checkout is None:
        r.skipped = "no AgentStudio checkout (--agent-studio)"
        return
    agent_studio(checkout)
    elsewhere()  # AgentStudio writes logs/ under the working directory
    try:
        mod = importlib.import_module(module)
        types = importlib.import_module("agent_studio.utils.types")
    except ImportError as e:
        r.skipped = f"AgentStudio's eval code not importable: {e}"
        return
    import logging

    logging.getLogger("agent_studio").setLevel(logging.WARNING)
    data = root / file
    rows = jsonl(data)
    r.total = len(rows)
    model = StandInModel(answer)
    results = Path(tempfile.mkdtemp()) / "results.jsonl"
    ev = getattr(mod, cls)(model=model, data_path=str(data), result_filename=str(results))
    all_rows = ev.data
    for i, row in enumerate(all_rows):
        try:
            if ABSOLUTE:
                for p in row_images(row):
                    if not os.path.isabs(p):
                        raise ValueError(f"image {p} is not absolute")
            if model_cls is not None:
                getattr(types, model_cls).model_validate(row)
            ev.data = [json.loads(json.dumps(row))]
            ev("stand-in", "stand-in")
            r.loaded += 1
        except Exception as e:
            r.fail(f"row {i}: {type(e).__name__}: {e}")
    written = len(jsonl(results)) if results.exists() else 0
    if written != r.loaded:
        r.fail(f"the eval wrote {written} results for {r.loaded} rows")
    r.how = (
        f"AgentStudio {module}.{cls}"
        + (f" and types.{model_cls}" if model_cls else "")
        + f" ({model.images} images opened through "
        + ("os.path.join(<jsonl folder>/images, absolute path))" if ABSOLUTE else "<jsonl folder>/images/)")
    )


# --- osworld ------------------------------------------------------------------------

OSWORLD_SETUP = {
    "download", "upload_file", "open", "launch", "execute", "command", "sleep",
    "activate_window", "close_window", "change_wallpaper", "tidy_desktop", "act",
    "replay", "chrome_open_tabs", "chrome_close_tabs", "googledrive", "login",
    "update_browse_history",
}
OSWORLD_APPS = {
    "chrome", "gimp", "libreoffice_calc", "libreoffice_impress", "libreoffice_writer",
    "os", "terminal", "thunderbird", "vlc", "vscode", "vs_code",
}


class StandInVM:
    """A stand-in for the VM's HTTP server on 127.0.0.1: answers every setup call
    and keeps what /setup/upload received."""

    def __init__(self):
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        uploads = self.uploads = []

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _answer(self):
                body = json.dumps({"status": "success", "output": "", "error": "", "returncode": 0})
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body.encode())

            def do_GET(self):
                self._answer()

            def do_POST(self):
                n = int(self.headers.get("Content-Length") or 0)
                data = self.rfile.read(n)
                if self.path == "/setup/upload":
                    uploads.append(data)
                self._answer()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def check_osworld(root, r):
    elsewhere()
    meta = json.loads((root / "test_all.json").read_text())
    metrics = getters = setup = None
    try:
        import logging

        from desktop_env.controllers import setup  # noqa: F811
        from desktop_env.evaluators import getters, metrics  # noqa: F811

        logging.getLogger("desktopenv").setLevel(logging.WARNING)
    except Exception as e:
        print(f"osworld: desktop_env not importable ({type(e).__name__}: {e}); checking the rules alone")
    vm = StandInVM() if setup is not None else None
    for domain, ids in meta.items():
        for tid in ids:
            r.total += 1
            try:
                t = json.loads((root / "examples" / domain / f"{tid}.json").read_text())
                ev = t["evaluator"]
                funcs = ev["func"] if isinstance(ev["func"], list) else [ev["func"]]
                for key in ("result", "expected", "options"):
                    if isinstance(ev["func"], list) and len(ev.get(key, [])) != len(funcs):
                        raise ValueError(f"evaluator.{key} is not as long as func")
                if metrics is not None:
                    # What DesktopEnv._set_task_info resolves.
                    for f in funcs:
                        getattr(metrics, f)
                    for g in ev["result"] + ev["expected"]:
                        if g:
                            getattr(getters, "get_" + g["type"])
                for step in t["config"]:
                    if step["type"] not in OSWORLD_SETUP:
                        raise ValueError(f"setup step {step['type']}")
                    if step["type"] == "upload_file":
                        for f in step["parameters"]["files"]:
                            if not os.path.exists(f["local_path"]):
                                raise ValueError(f"Setup Upload - Invalid local path ({f['local_path']})")
                if vm is not None:
                    # OSWorld's own setup controller runs the config against the
                    # stand-in VM; every file must arrive.
                    before = len(vm.uploads)
                    ctl = setup.SetupController(vm_ip="127.0.0.1", server_port=vm.port, cache_dir=tempfile.mkdtemp())
                    if not ctl.setup(t["config"]):
                        raise ValueError("SetupController.setup returned False")
                    files = [f for s in t["config"] if s["type"] == "upload_file" for f in s["parameters"]["files"]]
                    got = vm.uploads[before:]
                    if len(got) != len(files):
                        raise ValueError(f"{len(got)} uploads for {len(files)} files")
                    for f, body in zip(files, got):
                        if f["path"].encode() not in body or Path(f["local_path"]).read_bytes() not in body:
                            raise ValueError(f"upload of {f['path']} lacks the path or the bytes")
                bad = [a for a in t["related_apps"] if a not in OSWORLD_APPS]
                if bad:
                    raise ValueError(f"related_apps {bad} are not OSWorld ids")
                if t.get("synth", {}).get("desktop") == "simulated" and not t["synth"].get("requires"):
                    raise ValueError("a simulated-desktop task does not say it needs synth's desktop")
                r.loaded += 1
            except Exception as e:
                r.fail(f"task {tid}: {type(e).__name__}: {e}")
    if vm is not None:
        vm.close()
    r.how = "OSWorld's task rules" + (
        " and desktop_env's metrics, getters and SetupController (against a stand-in VM on 127.0.0.1)"
        if setup is not None
        else " (desktop_env not installed)"
    )


# --- omnibench ------------------------------------------------------------------------

def omnibench_image(root, o):
    if ABSOLUTE and not os.path.isabs(o):
        raise ValueError(f"{o} is not absolute")
    if not (root / o).is_file():
        raise ValueError(f"{o} missing")


def check_omnibench(root, r):
    tasks = json.loads((root / "tasks.json").read_text())
    trajs = json.loads((root / "task_trajectories.json").read_text())
    subs = json.loads((root / "subtask_trajectories.json").read_text())
    subtasks = {s["id"] for s in json.loads((root / "subtasks.json").read_text())}
    by_id = {}
    for t in tasks:
        r.total += 1
        try:
            nodes = t["dag"]["nodes"]
            for n in nodes:
                sid = t["nodes"][n]["subtask_id"]
                if sid not in subtasks:
                    raise ValueError(f"node {n}: unknown subtask {sid}")
                if n != sid and not n.startswith(sid + "#"):
                    raise ValueError(f"node id {n} is not its subtask id {sid}")
            for order in t["successful_topo"]:
                if sorted(order) != sorted(nodes):
                    raise ValueError("successful_topo names other nodes")
            by_id[t["task_id"]] = set(nodes)
            r.loaded += 1
        except Exception as e:
            r.fail(f"task {t.get('task_id')}: {e}")
    for t in trajs:
        r.total += 1
        try:
            if set(t["topological_order"]) != by_id[t["task_id"]]:
                raise ValueError("topological_order names other nodes")
            if len(t["observations"]) != len(t["actions"]) + 1:
                raise ValueError("not n + 1 observations")
            for o in t["observations"]:
                omnibench_image(root, o)
            r.loaded += 1
        except Exception as e:
            r.fail(f"trajectory {t['trajectory_id']}: {e}")
    for s in subs:
        r.total += 1
        try:
            if len(s["observations"]) != len(s["actions"]) + 1:
                raise ValueError(f"{len(s['observations'])} observations for {len(s['actions'])} actions")
            for o in s["observations"]:
                omnibench_image(root, o)
            r.loaded += 1
        except Exception as e:
            r.fail(f"subtask trajectory {s['trajectory_id']}: {e}")
    r.how = "appendix C's rules (node ids, n + 1 observations that exist)"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--exports", required=True, type=Path)
    ap.add_argument("--agent-studio", type=Path, default=None)
    ap.add_argument("--only", default=None, help="comma-separated formats")
    ap.add_argument("--absolute", action="store_true", help="the exports have absolute image paths")
    args = ap.parse_args()
    global ABSOLUTE
    ABSOLUTE = args.absolute
    exports = args.exports.resolve()
    checkout = args.agent_studio.resolve() if args.agent_studio else None
    checks = {
        "sharegpt": check_sharegpt,
        "qwen": check_qwen,
        "openai": check_openai,
        "grounding": lambda root, r: run_agent_studio(
            root, r, checkout, "eval_gui_grounding", "GUIGroundingEval", "grounding.jsonl", "(0.5, 0.5)", None
        ),
        "idm": lambda root, r: run_agent_studio(
            root, r, checkout, "eval_idm", "IDMSingleEval", "idm.jsonl", "Answer: A", "InverseAction"
        ),
        "critic": lambda root, r: run_agent_studio(
            root, r, checkout, "eval_success_detection", "SuccessDetectionEval", "critic.jsonl", "Answer: True", "Episode"
        ),
        "osworld": check_osworld,
        "omnibench": check_omnibench,
    }
    only = set(args.only.split(",")) if args.only else set(checks)
    passed = failed = 0
    for name, check in checks.items():
        if name not in only:
            continue
        r = Result(name + (" (--image-paths absolute)" if ABSOLUTE else ""))
        root = exports / name
        if not root.is_dir():
            r.skipped = f"no export at {root}"
        else:
            cwd = os.getcwd()
            try:
                check(root, r)
            except Exception:
                r.fail(traceback.format_exc(limit=3))
            finally:
                os.chdir(cwd)
        r.report()
        if r.skipped:
            continue
        if r.ok():
            passed += 1
        else:
            failed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
