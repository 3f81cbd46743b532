"""The MQTT side's errors, under the one root (buzzerbox/errors.py)."""

from __future__ import annotations

from buzzerbox.errors import BuzzerboxError, ConfigError


class MqttError(BuzzerboxError):
    """The root of the errors of the MQTT side."""


class BoxNameError(MqttError, ConfigError):
    """A box name that cannot be a topic level and a Home Assistant id."""


class BrokerUrlError(MqttError, ConfigError):
    """A broker address that is not mqtt://host[:port] or mqtts://host[:port]."""


class TlsFileError(BrokerUrlError):
    """A CA file, client certificate or key that cannot be used, or a login or TLS
    setting that does not fit the broker's URL."""


class SigningKeyError(MqttError, ConfigError):
    """A key for signing that cannot be used (missing file, too short)."""
