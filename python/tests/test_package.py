"""The package's identity and settings: version, commit, compiler identity,
and the cache settings the JIT and the autotuner share."""

import os
import re
import subprocess
import sys

import pytest

import tilelang_mlir
from tilelang_mlir import _tilelang

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_version_matches_the_project():
    with open(os.path.join(ROOT, "pyproject.toml")) as f:
        declared = re.search(r'^version = "([^"]+)"', f.read(), re.M).group(1)
    assert tilelang_mlir.__version__ == declared
    assert re.fullmatch(r"[0-9a-f]{7,40}(-dirty)?|unknown", tilelang_mlir.__commit__)


def test_compiler_identity_is_by_build_id():
    identity = _tilelang.compiler_identity()
    # The object holding TileLang always has a build ID (linked with one).
    assert re.search(r"(^| )tilelang:[0-9a-f]{40}($| )", identity), identity
    assert _tilelang.compiler_identity() == identity


def _settings(env):
    code = "from tilelang_mlir import _tilelang; print(_tilelang.cache_settings())"
    full = dict(os.environ)
    for name in ("TILE_CACHE_DIR", "TILE_DISABLE_CACHE", "TILE_CACHE_MAX_BYTES"):
        full.pop(name, None)
    full.update(env)
    proc = subprocess.run([sys.executable, "-c", code], env=full, capture_output=True,
                          text=True, check=True)
    return eval(proc.stdout), proc.stderr


def test_cache_settings_parse_sizes_and_switches(tmp_path):
    settings, err = _settings({"TILE_CACHE_DIR": str(tmp_path), "TILE_CACHE_MAX_BYTES": "500M",
                               "TILE_DISABLE_CACHE": "yes"})
    assert settings == {"directory": str(tmp_path), "enabled": False,
                        "max_bytes": 500 << 20}
    assert err == ""
    settings, _ = _settings({"TILE_DISABLE_CACHE": "off", "XDG_CACHE_HOME": str(tmp_path)})
    assert settings["enabled"] and settings["directory"] == str(tmp_path / "tilelang-mlir")


def test_cache_settings_warn_on_values_that_do_not_parse():
    settings, err = _settings({"TILE_CACHE_MAX_BYTES": "lots", "TILE_DISABLE_CACHE": "maybe"})
    assert settings["enabled"] and settings["max_bytes"] == 2 << 30
    assert "TILE_CACHE_MAX_BYTES='lots' is not a size" in err
    assert "TILE_DISABLE_CACHE='maybe'" in err


def test_autotuner_follows_the_jit_cache_settings(monkeypatch, tmp_path):
    from tilelang_mlir import autotuner
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TILE_DISABLE_CACHE", "true")
    assert autotuner._cache_dir() is None
    monkeypatch.setenv("TILE_DISABLE_CACHE", "no")
    assert autotuner._cache_dir() == str(tmp_path / "autotune")


def test_env_names_the_cache_directory(tmp_path, monkeypatch):
    # tilelang.env.TILELANG_CACHE_DIR is the JIT cache's own directory
    # (TILE_CACHE_DIR), TILELANG_TMP_DIR a folder inside it; TileLang's
    # code-generator settings are refused by name.
    import tilelang_mlir
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path / "cache"))
    assert tilelang_mlir.env.TILELANG_CACHE_DIR == str(tmp_path / "cache")
    tmp = tilelang_mlir.env.TILELANG_TMP_DIR
    assert tmp.startswith(str(tmp_path / "cache")) and os.path.isdir(tmp)
    assert isinstance(tilelang_mlir.env.is_cache_enabled(), bool)
    with pytest.raises(AttributeError, match="TILELANG_PRINT_ON_COMPILATION"):
        tilelang_mlir.env.TILELANG_PRINT_ON_COMPILATION
