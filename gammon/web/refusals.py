"""What the board's game API answers when it cannot do what it is asked: ``NoGame`` (404)
and ``Refused`` (409); a bad field is ``gammon.http_api.BadRequest`` (422)."""


class NoGame(LookupError):
    """No game by that id (never made, or dropped for newer ones): 404."""


class Refused(RuntimeError):
    """An action the game cannot take now (not the person's turn, no double to answer): 409."""


__all__ = ["NoGame", "Refused"]
