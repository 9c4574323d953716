"""The ad-network API's application codes, their HTTP statuses, and the error route handlers raise.

Every answer has the body ``{"code": <application code>, "message": "<text>"}`` (plus
``"data"`` on success, code 0).
"""

from __future__ import annotations

__all__ = ["CODES", "AppError"]

#: Application code → (HTTP status, the API's standard message).
CODES: dict[int, tuple[int, str]] = {
    0: (200, "Success"),
    5: (403, "Insufficient Permission"),
    11: (409, "Operation Not allowed"),
    12: (401, "Unauthorized Request"),
    13: (401, "Invalid API Key"),
    20: (400, "Request Parameter Error"),
    30: (400, "Bad Request"),
    31: (404, "Resource Not Found"),
    32: (405, "Invalid Request Method"),
    33: (409, "Duplicated Resource"),
    40: (429, "Too Many Request"),
    41: (403, "Request IP Not Whitelisted"),
    42: (403, "Account is locked"),
    50: (503, "System upgrade"),
    51: (500, "Server Internal Error"),
    60: (400, "Illegal Operation"),
}


class AppError(Exception):
    """An error answer: application ``code``, its HTTP status (or ``status``), and a message.

    Parameters
    ----------
    code : int
        An application code of :data:`CODES`.
    detail : str, optional
        What exactly went wrong; appended to the standard message.
    status : int, optional
        The HTTP status, when it is not the code's usual one (501 for unknown URIs, 200
        for an injected error in a success status).
    headers : dict, optional
        Extra response headers (``Allow``, ``Retry-After``).
    message : str, optional
        The whole message, in place of the standard one (and ``detail``).

    Examples
    --------
    >>> err = AppError(31, "no affiliate has id 5")
    >>> err.status, err.body()
    (404, {'code': 31, 'message': 'Resource Not Found: no affiliate has id 5'})
    """

    def __init__(
        self,
        code: int,
        detail: str = "",
        *,
        status: int | None = None,
        headers: dict[str, str] | None = None,
        message: str | None = None,
    ) -> None:
        usual_status, standard = CODES[code]
        self.code = code
        self.status = usual_status if status is None else status
        self.message = message or (f"{standard}: {detail}" if detail else standard)
        self.headers = dict(headers or {})
        super().__init__(self.message)

    def body(self) -> dict[str, object]:
        """The JSON body of the answer."""
        return {"code": self.code, "message": self.message}
