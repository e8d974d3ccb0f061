"""The few error types the harness raises; the CLI turns each into one line and an exit status."""


class HarnessError(Exception):
    """An error a user can fix; `exit_status` is what the CLI exits with."""

    exit_status = 2

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message}\n  hint: {self.hint}"


class DataError(HarnessError):
    """A data row breaks SPEC §1 (names the file and line, or the dataset index)."""


class PredictionError(HarnessError):
    """The predictions file breaks SPEC §6 (names the file and line)."""


class ConfigError(HarnessError):
    """A command-line or environment setting cannot work (bad Judge settings, missing key)."""


class JudgeError(HarnessError):
    """The Judge gave an invalid or incomplete verdict, or the provider kept failing (SPEC §10)."""

    exit_status = 3


class CompareError(HarnessError):
    """Runs that cannot be compared: unreadable, not paired, or differently configured (SPEC §12)."""
