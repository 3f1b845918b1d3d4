"""compaction-basic configuration: thresholds, retention, retries and per-model overrides."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, StrictBool, StrictInt, ValidationError, model_validator

from compactcheck.invariants.errors import first_problem
from compactcheck.reference_engine.session.errors import ConfigError, TargetPressureConfigError


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


def _check_ratio(name: str, value: float | None) -> None:
    if value is not None and not (0 < value <= 1 and math.isfinite(value)):
        raise ValueError(f"{name} must be in (0, 1]; found {value}")


class ModelPolicy(_Strict):
    """Overrides for one exact provider/model pair."""

    provider: str
    model: str
    threshold_ratio: float | None = None
    retain_ratio: float | None = None
    retain_tokens: StrictInt | None = None
    summarization_provider: str | None = None
    summarization_model: str | None = None
    max_tokens: StrictInt | None = None
    compaction_retries: StrictInt | None = None
    max_overflow_retries: StrictInt | None = None

    @model_validator(mode="after")
    def _valid(self) -> ModelPolicy:
        if not self.provider or not self.model:
            raise ValueError("modelPolicies entries need a non-empty provider and model")
        _check_common(self)
        return self


class CompactionConfig(_Strict):
    """The resolved, frozen configuration of the basic compaction backend."""

    threshold_ratio: float = 0.8
    retain_ratio: float | None = 0.16
    retain_tokens: StrictInt | None = None
    summarization_provider: str = ""
    summarization_model: str = ""
    max_tokens: StrictInt = 8192
    compaction_retries: StrictInt = 1
    max_overflow_retries: StrictInt = 1
    model_policies: tuple[ModelPolicy, ...] = ()
    auto: StrictBool = True

    @model_validator(mode="before")
    @classmethod
    def _retention_default(cls, data: Any) -> Any:
        # retainTokens replaces the default ratio; giving both explicitly is an error below.
        if isinstance(data, dict) and "retain_tokens" in data and "retain_ratio" not in data:
            return {**data, "retain_ratio": None}
        return data

    @model_validator(mode="after")
    def _valid(self) -> CompactionConfig:
        _check_common(self)
        if self.retain_ratio is not None and self.retain_ratio >= self.threshold_ratio:
            raise ValueError(
                f"retainRatio {self.retain_ratio} must be less than thresholdRatio "
                f"{self.threshold_ratio}"
            )
        seen: set[tuple[str, str]] = set()
        for policy in self.model_policies:
            key = (policy.provider, policy.model)
            if key in seen:
                raise ValueError(f"duplicate modelPolicies entry for {key[0]}/{key[1]}")
            seen.add(key)
            resolved = resolve_target_policy(self, policy.provider, policy.model)
            if resolved.retain_ratio is not None and resolved.retain_ratio >= (
                resolved.threshold_ratio
            ):
                raise ValueError(
                    f"retainRatio {resolved.retain_ratio} must be less than thresholdRatio "
                    f"{resolved.threshold_ratio} for {key[0]}/{key[1]}"
                )
        return self


def _check_common(config: ModelPolicy | CompactionConfig) -> None:
    _check_ratio("thresholdRatio", config.threshold_ratio)
    _check_ratio("retainRatio", config.retain_ratio)
    if config.retain_tokens is not None:
        if config.retain_tokens < 0:
            raise ValueError(
                f"retainTokens must be a non-negative integer; found {config.retain_tokens}"
            )
        if config.retain_ratio is not None and isinstance(config, ModelPolicy):
            raise ValueError("retainTokens cannot be combined with retainRatio")
    if config.max_tokens is not None and config.max_tokens <= 0:
        raise ValueError(f"maxTokens must be a positive integer; found {config.max_tokens}")
    for name in ("compaction_retries", "max_overflow_retries"):
        value = getattr(config, name)
        if value is not None and value < 0:
            raise ValueError(f"{name} must be a non-negative integer; found {value}")
    provider, model = config.summarization_provider, config.summarization_model
    if (provider is None) != (model is None) or bool(provider) != bool(model):
        raise ValueError(
            "summarizationProvider and summarizationModel must be given together "
            f"(both empty or both set); found {provider!r} and {model!r}"
        )


def load_config(options: dict[str, Any] | None = None) -> CompactionConfig:
    """Validate user options (snake_case keys) into a frozen config; raise ConfigError."""
    options = dict(options or {})
    if "retain_tokens" in options and "retain_ratio" in options:
        raise ConfigError(
            "retain_tokens cannot be combined with retain_ratio; choose one retention rule"
        )
    if "model_policies" in options:
        options["model_policies"] = tuple(options["model_policies"])
    try:
        return CompactionConfig.model_validate(options)
    except ValidationError as error:
        where, what = first_problem(error)
        raise ConfigError(
            f"invalid compaction config at {where or 'config'}: {what}; fix or remove that key"
        ) from error


@dataclass(frozen=True)
class TargetPolicy:
    """The configuration that applies to one conversation target."""

    threshold_ratio: float
    retain_ratio: float | None
    retain_tokens: int | None
    summarization_provider: str
    summarization_model: str
    max_tokens: int
    compaction_retries: int
    max_overflow_retries: int


def resolve_target_policy(config: CompactionConfig, provider: str, model: str) -> TargetPolicy:
    """Merge the override for exactly this provider and model over the top level."""
    override = next(
        (p for p in config.model_policies if p.provider == provider and p.model == model), None
    )

    def pick(name: str) -> Any:
        value = getattr(override, name) if override is not None else None
        return getattr(config, name) if value is None else value

    if override is not None and (
        override.retain_tokens is not None or override.retain_ratio is not None
    ):
        retain_ratio, retain_tokens = override.retain_ratio, override.retain_tokens
    else:
        retain_ratio, retain_tokens = config.retain_ratio, config.retain_tokens
    if override is not None and override.summarization_provider is not None:
        summary_target = (override.summarization_provider, override.summarization_model or "")
    else:
        summary_target = (config.summarization_provider, config.summarization_model)
    return TargetPolicy(
        threshold_ratio=pick("threshold_ratio"),
        retain_ratio=retain_ratio,
        retain_tokens=retain_tokens,
        summarization_provider=summary_target[0],
        summarization_model=summary_target[1],
        max_tokens=pick("max_tokens"),
        compaction_retries=pick("compaction_retries"),
        max_overflow_retries=pick("max_overflow_retries"),
    )


@dataclass(frozen=True)
class CompactSpec:
    """Absolute token budgets for one context window."""

    threshold_tokens: int
    retain_tokens: int


def resolve_compact_spec(policy: TargetPolicy, context_window: object) -> CompactSpec:
    """Turn ratios into token budgets for a context window; raise TargetPressureConfigError."""
    if type(context_window) is not int or context_window <= 0:
        raise TargetPressureConfigError(
            f"context window must be a positive integer; found {context_window!r}; "
            "configure the model's capacity"
        )
    threshold = math.floor(context_window * policy.threshold_ratio)
    if policy.retain_tokens is not None:
        retain = policy.retain_tokens
    else:
        retain = math.floor(context_window * (policy.retain_ratio or 0.0))
    if retain >= threshold:
        raise TargetPressureConfigError(
            f"retain tokens {retain} must be less than threshold tokens {threshold} for a "
            f"context window of {context_window}; lower the retention or raise the threshold"
        )
    return CompactSpec(threshold, retain)
