"""Is the Judge the model the run names? (docs/judge.md#the-judges-name)

Many servers answer whatever model name a request carries (llama.cpp, a one-model vLLM): a run
without --judge-model would sign the default Judge's name while another model answered. Where the
server lists its models (`GET {base}/models`), the name asked for is checked against the list once,
before the first verdict; a mismatch is one warning line, and the summary's `judge.model_check`
records both names. Never fatal: a server without the list (or that refuses it) is "unknown".
"""

from __future__ import annotations

from typing import Callable

LISTED_MAX = 20  # names kept from the server's list
NAME_MAX = 200   # characters kept of one name (outside text)


def listed_models(payload: object) -> list[str] | None:
    """The model ids of a /models body (`{"data": [{"id": ...}, ...]}`), or None when it is no such list."""
    if not isinstance(payload, dict) or not isinstance(payload.get("data"), list):
        return None
    names = [entry["id"][:NAME_MAX] for entry in payload["data"]
             if isinstance(entry, dict) and isinstance(entry.get("id"), str)]
    return names or None


def model_check(asked: str, listed: list[str] | None) -> dict:
    """The summary's `judge.model_check`: the name asked for, the server's names and whether it is among them."""
    return {"asked": asked, "server_models": None if listed is None else listed[:LISTED_MAX],
            "listed": None if listed is None else asked in listed}


def mismatch_warning(check: dict, default_name: bool = False) -> str | None:
    """One line when the server lists models and the Judge's name is not among them."""
    if check.get("listed") is not False:
        return None
    served = ", ".join(repr(name) for name in check["server_models"][:5])
    more = f" and {len(check['server_models']) - 5} more" if len(check["server_models"]) > 5 else ""
    return (f"warning: the Judge server lists {served}{more}, not {check['asked']!r}; it may answer as another "
            f"model while the run is signed judge:{check['asked']}: pass --judge-model with the served name")


BODY_MAX = 1_000_000  # bytes of a /models body read at most


async def probe(client, url: str, headers: dict, timeout: float) -> list[str] | None:
    """GET the /models list once through an httpx client, uncompressed and at most BODY_MAX bytes
    read; None on any failure."""
    import json

    import httpx

    try:
        async with client.stream("GET", url, headers={**headers, "accept-encoding": "identity"},
                                 timeout=timeout) as response:
            if response.status_code != 200:
                return None
            body = bytearray()
            async for chunk in response.aiter_raw():
                body += chunk
                if len(body) > BODY_MAX:
                    return None
        return listed_models(json.loads(bytes(body)))
    except (httpx.HTTPError, ValueError, RecursionError):
        return None
