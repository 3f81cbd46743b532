"""`buzzerbox box`: serve's options, advertised while serve runs, URL and QR first."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from buzzerbox.appliance import mdns, run
from buzzerbox.appliance.errors import MdnsError
from buzzerbox.cli import build_parser


class FakeAdvertiser:
    def __init__(self, ann: mdns.Announcement, fail: bool = False) -> None:
        self.announcement = ann
        self.fail = fail
        self.started = self.stopped = False

    def start(self) -> mdns.Announcement:
        if self.fail:
            raise MdnsError("no network")
        self.started = True
        self.announcement = mdns.Announcement("buzzerbox-2", self.announcement.port, ("10.0.0.2",))
        return self.announcement

    def refresh(self, addresses: tuple[str, ...]) -> bool:
        return False

    def stop(self) -> None:
        self.stopped = True


def parse(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["box", *argv])


def test_box_takes_serve_options_and_its_own() -> None:
    args = parse("--port", "8080", "--data", "/tmp/x", "--name", "table-2", "--no-mdns")
    assert args.port == 8080
    assert args.data == Path("/tmp/x")
    assert args.name == "table-2"
    assert args.no_mdns is True
    assert args.func is run.run_box
    assert run.box_name(parse()) == "buzzerbox"


def test_the_name_comes_from_the_config_unless_given(tmp_path: Path) -> None:
    config = tmp_path / "box.toml"
    config.write_text('name = "table-07"\n', encoding="utf-8")
    assert run.box_name(parse("--config", str(config))) == "table-07"
    assert run.box_name(parse("--config", str(config), "--name", "table-08")) == "table-08"


def test_a_name_that_is_no_host_name_is_refused_in_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "box.toml"
    config.write_text('name = "Table 7"\n', encoding="utf-8")

    def serve(args: argparse.Namespace) -> int:
        raise AssertionError("a box with a bad name must not serve")

    assert run.run_box(parse("--config", str(config)), serve=serve) == 2
    assert "the name 'Table 7' is not allowed: a host name is 1-63" in capsys.readouterr().err


def test_box_advertises_prints_and_serves(capsys: pytest.CaptureFixture[str]) -> None:
    made: list[FakeAdvertiser] = []
    seen: list[argparse.Namespace] = []

    def advertiser(ann: mdns.Announcement) -> FakeAdvertiser:
        made.append(FakeAdvertiser(ann))
        return made[-1]

    def serve(args: argparse.Namespace) -> int:
        assert made[0].started and not made[0].stopped  # advertised while serving
        seen.append(args)
        return 0

    args = parse("--port", "8080")
    code = run.run_box(
        args,
        serve=serve,
        advertiser=advertiser,
        addresses=lambda: ("10.0.0.2",),
    )
    assert code == 0
    assert seen == [args]
    assert args.advertised_url == "http://buzzerbox-2.local:8080/"  # serve lists it too
    assert made[0].announcement.port == 8080
    assert made[0].stopped
    out = capsys.readouterr().out
    assert "buzzerbox scoreboard: http://buzzerbox-2.local:8080/" in out
    assert "http://10.0.0.2:8080/" in out


def test_the_port_comes_from_serve_s_config_file(tmp_path: Path) -> None:
    config = tmp_path / "box.toml"
    config.write_text('port = 81\ndata = "/var/lib/buzzerbox"\n', encoding="utf-8")
    assert run.serve_port(parse("--config", str(config))) == 81
    assert run.serve_port(parse("--config", str(config), "--port", "82")) == 82
    assert run.serve_port(parse()) == 8000


def test_the_advertisement_is_withdrawn_when_serve_fails() -> None:
    made: list[FakeAdvertiser] = []

    def advertiser(ann: mdns.Announcement) -> FakeAdvertiser:
        made.append(FakeAdvertiser(ann))
        return made[-1]

    def serve(args: argparse.Namespace) -> int:
        raise RuntimeError("port taken")

    with pytest.raises(RuntimeError):
        run.run_box(parse(), serve=serve, advertiser=advertiser, addresses=lambda: ())
    assert made[0].stopped


def test_without_mdns_or_when_it_fails_the_box_still_serves(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def refuse(ann: mdns.Announcement) -> mdns.Advertiser:
        raise AssertionError("no advertiser wanted")

    code = run.run_box(
        parse("--no-mdns"), serve=lambda a: 3, advertiser=refuse, addresses=lambda: ("10.0.0.2",)
    )
    assert code == 3
    out = capsys.readouterr().out
    # not advertised: the code holds the address, never a name nobody answers for
    assert "buzzerbox scoreboard: http://10.0.0.2:8000/" in out
    assert mdns.qr_text("http://10.0.0.2:8000/").rstrip("\n") in out
    assert ".local" not in out

    code = run.run_box(
        parse(),
        serve=lambda a: 0,
        advertiser=lambda ann: FakeAdvertiser(ann, fail=True),
        addresses=lambda: (),
    )
    assert code == 0
    captured = capsys.readouterr()
    assert "not advertised by mDNS: no network" in captured.err
    # no address but loopback: said plainly, and no code that would lead nowhere
    assert "no network: phones cannot reach this box" in captured.out
    assert "http://" not in captured.out and "▀" not in captured.out


def test_a_bad_config_is_left_to_serve_to_report(tmp_path: Path) -> None:
    config = tmp_path / "box.toml"
    config.write_text("colour = 'red'\n", encoding="utf-8")
    seen: list[int] = []

    def serve(args: argparse.Namespace) -> int:
        seen.append(1)
        return 2

    def refuse(ann: mdns.Announcement) -> mdns.Advertiser:
        raise AssertionError("nothing to advertise")

    code = run.run_box(
        parse("--config", str(config)), serve=serve, advertiser=refuse, addresses=lambda: ()
    )
    assert code == 2
    assert seen == [1]


def test_url_prints_the_banner(capsys: pytest.CaptureFixture[str]) -> None:
    args = build_parser().parse_args(["url", "--port", "8000", "--name", "table-3"])
    assert args.func(args) == 0
    assert "http://table-3.local:8000/" in capsys.readouterr().out
    bad = build_parser().parse_args(["url", "--name", "Table"])
    assert bad.func(bad) == 2


def test_the_watch_follows_new_addresses_and_prints_the_banner_again(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    monkeypatch.setattr(run, "WATCH_S", 0.0)
    stop = threading.Event()
    seen: list[tuple[str, ...]] = []

    class Following(FakeAdvertiser):
        def refresh(self, addresses: tuple[str, ...]) -> bool:
            seen.append(addresses)
            if len(seen) == 2:
                stop.set()
                raise OSError("network went away")  # logged, never kills the box
            self.announcement = mdns.Announcement("buzzerbox", 80, addresses)
            return True

    adv = Following(mdns.Announcement())
    run._watch(adv, lambda: ("10.0.0.7",), stop)
    assert seen == [("10.0.0.7",), ("10.0.0.7",)]
    assert "http://10.0.0.7/" in capsys.readouterr().out
