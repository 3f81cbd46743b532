"""A venue's own certificate authority, made in the test: a CA, a broker certificate
it signed (for 127.0.0.1 and localhost), a client certificate, and a CA nobody
trusts. PEM files written with the `cryptography` package. Not a test module."""

from __future__ import annotations

import datetime
import ipaddress
import subprocess
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


@dataclass(frozen=True)
class Pki:
    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path
    other_ca: Path  # a CA that signed nothing of this broker's


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _write_key(key: ec.EllipticCurvePrivateKey, path: Path) -> None:
    path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )


_CA_USAGE = x509.KeyUsage(
    digital_signature=True,
    content_commitment=False,
    key_encipherment=False,
    data_encipherment=False,
    key_agreement=False,
    key_cert_sign=True,
    crl_sign=True,
    encipher_only=False,
    decipher_only=False,
)


def _ca(common: str, path: Path) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name(common))
        .issuer_name(_name(common))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(_CA_USAGE, critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), False)
        .sign(key, hashes.SHA256())
    )
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return cert, key


def _leaf(
    common: str,
    ca: tuple[x509.Certificate, ec.EllipticCurvePrivateKey],
    usage: x509.ObjectIdentifier,
    cert_path: Path,
    key_path: Path,
) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(common))
        .issuer_name(ca[0].subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca[1].public_key()), False
        )
    )
    if usage == ExtendedKeyUsageOID.SERVER_AUTH:
        builder = builder.add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
    cert = builder.sign(ca[1], hashes.SHA256())
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    _write_key(key, key_path)


def make_pki(folder: Path) -> Pki:
    folder.mkdir(parents=True, exist_ok=True)
    ca = _ca("Venue test CA", folder / "ca.pem")
    _leaf(
        "broker", ca, ExtendedKeyUsageOID.SERVER_AUTH, folder / "broker.pem", folder / "broker.key"
    )
    _leaf("box", ca, ExtendedKeyUsageOID.CLIENT_AUTH, folder / "box.pem", folder / "box.key")
    _ca("Nobody's CA", folder / "other-ca.pem")
    return Pki(
        ca=folder / "ca.pem",
        server_cert=folder / "broker.pem",
        server_key=folder / "broker.key",
        client_cert=folder / "box.pem",
        client_key=folder / "box.key",
        other_ca=folder / "other-ca.pem",
    )


def password_file(path: Path, user: str, password: str) -> Path:
    """A mosquitto password file made by mosquitto_passwd (Debian's mosquitto)."""
    path.write_text("")
    subprocess.run(["mosquitto_passwd", "-b", str(path), user, password], check=True)
    return path


def tls_listener(pki: Pki, *, passwords: Path | None = None, client_certs: bool = False) -> str:
    """mosquitto.conf lines for a TLS listener with the test's CA."""
    lines = [
        f"cafile {pki.ca}",
        f"certfile {pki.server_cert}",
        f"keyfile {pki.server_key}",
        f"require_certificate {'true' if client_certs else 'false'}",
    ]
    if passwords is not None:
        lines += ["allow_anonymous false", f"password_file {passwords}"]
    else:
        lines.append("allow_anonymous true")
    return "\n".join(lines) + "\n"
