"""install.sh in its dry-run mode (the commands it would run, in order), a real trial
install into a temporary root (a fresh venv, `buzzerbox` on PATH, the clone left
clean), and its systemd unit (verified and rated by systemd-analyze)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from buzzerbox.appliance import installer
from buzzerbox.appliance.commands import install_options
from buzzerbox.cli import build_parser

SCRIPT = installer.packaged("install.sh")
REPO = Path(__file__).resolve().parents[2]
UNIT = installer.packaged("buzzerbox.service")


def dry_run(*options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(SCRIPT), "--dry-run", *options],
        capture_output=True,
        text=True,
        timeout=20,
        check=False,
    )


def commands(out: str) -> list[str]:
    return [line[2:] for line in out.splitlines() if line.startswith("+ ")]


def written(out: str, path: str) -> str:
    """The content the dry run shows for the file it would write at `path`."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"+ write {path} "))
    body: list[str] = []
    for line in lines[start + 1 :]:
        if not line.startswith("|"):
            break
        body.append(line[2:])
    return "\n".join(body) + "\n"


def test_dry_run_lists_every_step_in_order() -> None:
    result = dry_run("--source", "/src/buzzerbox")
    assert result.returncode == 0, result.stderr
    cmds = commands(result.stdout)
    expected = [
        "apt-get update -qq",
        "env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "
        "python3-venv python3-pip python3-lgpio gcc libc6-dev python3-dev",
        "getent group gpio >/dev/null || groupadd --system gpio",
        "getent group dialout >/dev/null || groupadd --system dialout",
        "getent passwd buzzerbox >/dev/null || useradd --system --user-group "
        "--home-dir /var/lib/buzzerbox --no-create-home --shell /usr/sbin/nologin buzzerbox",
        "usermod --append --groups gpio,dialout buzzerbox",
        "mkdir -p /opt/buzzerbox",
        "test -x /opt/buzzerbox/venv/bin/python || "
        "python3 -m venv --system-site-packages /opt/buzzerbox/venv",
        "/opt/buzzerbox/venv/bin/python -m pip install --quiet --disable-pip-version-check "
        "--upgrade /src/buzzerbox mpremote",
        "mkdir -p /usr/local/bin",
        "ln -sfn /opt/buzzerbox/venv/bin/buzzerbox /usr/local/bin/buzzerbox",
        "mkdir -p /etc/buzzerbox",
        "write /etc/buzzerbox/box.toml (mode 0640, group buzzerbox)",
        "write /etc/default/buzzerbox (mode 0644, group root)",
        "write /etc/systemd/system/buzzerbox.service (mode 0644, group root)",
        "systemctl daemon-reload",
        "systemctl enable buzzerbox.service",
        "systemctl restart buzzerbox.service",
    ]
    assert cmds == expected


def test_dry_run_writes_the_settings_the_unit_reads() -> None:
    out = dry_run("--pads", "my pads.toml", "--port", "8080", "--name", "table-2").stdout
    assert "install -m 0644 my\\ pads.toml /etc/buzzerbox/pads.toml" in commands(out)
    box = written(out, "/etc/buzzerbox/box.toml")
    assert "port = 8080\n" in box
    assert 'data = "/var/lib/buzzerbox"\n' in box
    assert 'pads = "/etc/buzzerbox/pads.toml"\n' in box
    assert re.search(r'^pin = "\d{8}"$', box, re.M)  # the README's 8 digits
    assert 'name = "table-2"\n' in box
    defaults = written(out, "/etc/default/buzzerbox")
    assert 'BUZZERBOX_ARGS="--config /etc/buzzerbox/box.toml"' in defaults
    assert written(out, "/etc/hostname") == "table-2\n"
    assert re.search(r"^127\.0\.1\.1\ttable-2$", written(out, "/etc/hosts"), re.M)
    assert "hostname table-2" in commands(out)
    unit = written(out, "/etc/systemd/system/buzzerbox.service")
    assert "ExecStart=/opt/buzzerbox/venv/bin/buzzerbox box $BUZZERBOX_ARGS" in unit
    assert "EnvironmentFile=-/etc/default/buzzerbox" in unit


def test_without_a_pad_map_the_box_is_simulated() -> None:
    box = written(dry_run().stdout, "/etc/buzzerbox/box.toml")
    assert re.search(r"^# pads = ", box, re.M)
    assert not re.search(r"^pads =", box, re.M)


def test_without_a_name_the_host_name_is_left_alone() -> None:
    out = dry_run().stdout
    assert re.search(r"^# name = ", written(out, "/etc/buzzerbox/box.toml"), re.M)
    assert "+ write /etc/hostname" not in out
    assert not any(c.startswith("hostname ") for c in commands(out))


def test_prefix_user_and_skips() -> None:
    out = dry_run(
        "--prefix", "/srv/bb", "--user", "bbx", "--no-apt", "--no-start", "--bin", "/usr/bin"
    ).stdout
    cmds = commands(out)
    assert "ln -sfn /srv/bb/venv/bin/buzzerbox /usr/bin/buzzerbox" in cmds
    assert not any("apt-get" in c for c in cmds)
    assert "systemctl restart buzzerbox.service" not in cmds
    assert "usermod --append --groups gpio,dialout bbx" in cmds
    unit = written(out, "/etc/systemd/system/buzzerbox.service")
    assert "ExecStart=/srv/bb/venv/bin/buzzerbox box $BUZZERBOX_ARGS" in unit
    assert "\nUser=bbx\n" in unit
    assert "\nGroup=bbx\n" in unit


def test_the_default_source_is_the_checkout_the_script_is_in() -> None:
    root = Path(__file__).resolve().parents[2]
    if not (root / "host" / "buzzerbox" / "appliance" / "install.sh").samefile(SCRIPT):
        pytest.skip("the package is not installed from this checkout")
    cmds = commands(dry_run().stdout)
    copy = "/tmp/buzzerbox-source.XXXXXX"
    assert f"copy {root} to {copy} (not .git, build, dist, *.egg-info, *.so, caches)" in cmds
    assert any(c.endswith(f"--upgrade {copy} mpremote") for c in cmds)  # never built in the clone
    assert "write /opt/buzzerbox/source (mode 0644, group root)" in cmds  # for updates


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--port", "0"], "port 0 is out of range"),
        (["--port", "eighty"], "port eighty is not a number"),
        (["--name", "Box"], "the name 'Box' is not allowed: a host name is 1-63 of a-z"),
        (["--name", "table_07"], "the name 'table_07' is not allowed"),
        (["--name", "table-"], "not starting or ending with - (e.g. table-07)"),
        (["--name", "t" * 64], "is not allowed: a host name is 1-63"),
        (["--what"], "unknown option --what"),
    ],
)
def test_bad_options_are_refused(options: list[str], message: str) -> None:
    result = dry_run(*options)
    assert result.returncode == 2
    assert message in result.stderr


def test_it_will_not_install_on_a_machine_that_is_not_a_pi() -> None:
    model = Path("/proc/device-tree/model")
    if model.exists() and b"Raspberry Pi" in model.read_bytes():
        pytest.skip("this is a Raspberry Pi: the script would really install")
    result = subprocess.run(
        ["bash", str(SCRIPT)], capture_output=True, text=True, timeout=20, check=False
    )
    assert result.returncode == 1
    assert "this is not a Raspberry Pi" in result.stderr
    assert result.stdout == ""


def systemd_analyze() -> str:
    analyze = shutil.which("systemd-analyze")
    assert analyze is not None, "systemd-analyze is missing: bash tests/check installs systemd"
    return analyze


def test_the_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    analyze = systemd_analyze()
    unit = written(dry_run().stdout, "/etc/systemd/system/buzzerbox.service")
    # verify checks that ExecStart exists: point it at a real executable
    unit = unit.replace("/opt/buzzerbox/venv/bin/buzzerbox", sys.executable)
    path = tmp_path / "buzzerbox.service"
    path.write_text(unit, encoding="utf-8")
    result = subprocess.run(
        [analyze, "verify", str(path)], capture_output=True, text=True, timeout=30, check=False
    )
    assert result.returncode == 0, result.stderr
    complaints = [line for line in result.stderr.splitlines() if "buzzerbox.service" in line]
    assert complaints == []


def test_the_unit_is_rated_4_or_better_by_systemd_analyze_security(tmp_path: Path) -> None:
    path = tmp_path / "buzzerbox.service"
    path.write_text(written(dry_run().stdout, "/etc/systemd/system/buzzerbox.service"))
    result = subprocess.run(
        [systemd_analyze(), "security", "--offline=true", "--no-pager", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    found = re.search(
        r"Overall exposure level for buzzerbox.service: ([\d.]+) (\w+)", result.stdout
    )
    assert found is not None, result.stdout + result.stderr
    assert float(found.group(1)) <= 4.0, result.stdout
    print(f"systemd-analyze security: {found.group(1)} {found.group(2)}")


def test_the_unit_starts_without_the_network_and_restarts_whatever_ends_it() -> None:
    text = UNIT.read_text(encoding="utf-8")
    units = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    assert "network-online" not in units and "time-sync" not in units
    assert "/etc/default/buzzerbox only holds the command line" in text
    for line in (
        "Restart=always",
        "UMask=0027",
        "ProtectSystem=strict",
        "ReadWritePaths=/var/lib/buzzerbox",
        "ProtectHome=yes",
        "PrivateTmp=yes",
        "NoNewPrivileges=yes",
        "DevicePolicy=closed",
        "DeviceAllow=char-gpiochip rw",
        "DeviceAllow=char-ttyACM rw",
        "User=buzzerbox",
        "SupplementaryGroups=gpio dialout",
        "WantedBy=multi-user.target",
        "StandardOutput=journal+console",
        "StartLimitIntervalSec=0",
    ):
        assert f"\n{line}\n" in text, line


def test_buzzerbox_install_passes_its_options_to_the_script() -> None:
    args = build_parser().parse_args(
        ["install", "--dry-run", "--pads", "p.toml", "--port", "81", "--no-apt", "--bin", "/b"]
    )
    assert install_options(args) == [
        *("--pads", "p.toml", "--port", "81", "--bin", "/b", "--dry-run", "--no-apt")
    ]
    cmd = installer.script_command(install_options(args), source="/src")
    assert cmd[:4] == ["bash", str(SCRIPT), "--source", "/src"]


def test_buzzerbox_install_dry_run_runs_the_packaged_script() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "buzzerbox", "install", "--dry-run", "--source", "/x"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "+ systemctl enable buzzerbox.service" in result.stdout
    assert "--upgrade /x" in result.stdout


def test_the_source_is_the_checkout_or_what_pip_recorded(tmp_path: Path) -> None:
    checkout = tmp_path / "repo"
    (checkout / "host" / "buzzerbox").mkdir(parents=True)
    (checkout / "pyproject.toml").write_text("", encoding="utf-8")
    assert installer.find_source(checkout / "host" / "buzzerbox") == str(checkout)
    venv = tmp_path / "opt" / "venv"
    site = venv / "lib" / "site-packages" / "buzzerbox"
    assert installer.noted_source(venv) is None
    (tmp_path / "opt" / "source").parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "opt" / "source").write_text(f"{checkout}\n", encoding="utf-8")
    assert installer.find_source(site, venv) == str(checkout)  # what install.sh noted
    (tmp_path / "opt" / "source").write_text(f"{tmp_path / 'gone'}\n", encoding="utf-8")
    assert installer.noted_source(venv) is None
    assert installer.checkout_root(tmp_path / "site-packages" / "buzzerbox") is None

    class Dist:
        def __init__(self, text: str | None) -> None:
            self.text = text

        def read_text(self, name: str) -> str | None:
            return self.text if name == "direct_url.json" else None

    wheel = tmp_path / "buzzerbox-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"")
    url = json.dumps({"url": wheel.as_uri(), "archive_info": {}})
    assert installer.recorded_source(Dist(url)) == str(wheel)  # type: ignore[arg-type]
    remote = json.dumps({"url": "https://example.org/buzzerbox.tar.gz"})
    assert installer.recorded_source(Dist(remote)) is None  # type: ignore[arg-type]
    assert installer.recorded_source(Dist(None)) is None  # type: ignore[arg-type]
    assert installer.recorded_source(Dist("not json")) is None  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "script",
    [SCRIPT, REPO / "tests" / "check", REPO / ".ci" / "run", REPO / "tests/hardware/kicad/root.sh"],
)
def test_the_script_passes_shellcheck(script: Path) -> None:
    shellcheck = shutil.which("shellcheck")
    assert shellcheck is not None, "shellcheck is missing: bash tests/check installs it"
    result = subprocess.run(
        [shellcheck, str(script)], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stdout


def test_the_settings_it_writes_start_serve_with_the_pad_map(tmp_path: Path) -> None:
    from buzzerbox.pads.feed import open_sources
    from buzzerbox.serve import settings

    box = written(dry_run("--pads", "pads.toml").stdout, "/etc/buzzerbox/box.toml")
    config = tmp_path / "box.toml"
    config.write_text(box.replace("/etc/buzzerbox/", f"{tmp_path}/"), encoding="utf-8")
    shutil.copy(
        Path(__file__).resolve().parents[2] / "hardware/builds/ligretto12/pads.toml",
        tmp_path / "pads.toml",
    )
    args = build_parser().parse_args(["serve", "--config", str(config)])
    cfg = settings(args)
    assert cfg["port"] == 80
    pad_map, sources = open_sources(cfg["pads"], tmp_path)
    assert len(pad_map.pads) == 12
    assert {p.role for p in pad_map.pads} == {"stop"}
    sources.close()
