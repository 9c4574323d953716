"""Users: the authenticated user, any user by id, profile updates."""

from __future__ import annotations

from docsapi.core.checks import check_display_name, check_id, check_url, require_any
from docsapi.models import APITemporaryToken, User
from docsapi.resources._base import ResourceGroup, api_path

__all__ = ["Users"]


class Users(ResourceGroup):
    """User accounts: ``client.users``."""

    _name = "users"

    def me(self) -> User:
        """Return the user the token belongs to.

        Returns
        -------
        User

        Raises
        ------
        AuthenticationError
            The token is missing or invalid.

        Examples
        --------
        >>> client.users.me().id == admin_id  # the user behind the token
        True
        """
        return User.from_api(self._get("/user"))

    def get(self, user_id: str) -> User:
        """Return a user by id.

        Parameters
        ----------
        user_id : str
            The user's id.

        Returns
        -------
        User

        Raises
        ------
        ValidationError
            ``user_id`` is empty.
        NotFoundError
            No such user.

        Examples
        --------
        >>> client.users.get(user_id).email.endswith("@stark-devices.example")
        True
        """
        check_id(user_id, "user_id")
        return User.from_api(self._get(api_path("users", user_id)))

    def update(
        self, user_id: str, *, display_name: str | None = None, photo_url: str | None = None
    ) -> User:
        """Change a user's display name and/or photo; fields left as ``None`` stay as they are.

        Parameters
        ----------
        user_id : str
            The user's id.
        display_name : str, optional
            1 to 64 characters.
        photo_url : str, optional
            An http(s) URL of the new photo.

        Returns
        -------
        User
            The updated user.

        Raises
        ------
        ValidationError
            Neither field given, a display name outside 1 to 64 characters, or a bad URL.
        NotFoundError
            No such user.

        Examples
        --------
        >>> client.users.update(admin_id, display_name="Ada L.").display_name
        'Ada L.'
        """
        check_id(user_id, "user_id")
        require_any(
            {"display_name": display_name, "photo_url": photo_url},
            "give at least one field to change",
        )
        body: dict[str, str] = {}
        if display_name is not None:
            body["displayName"] = check_display_name(display_name)
        if photo_url is not None:
            body["photoURL"] = check_url(photo_url, "photo_url")
        return User.from_api(self._object("PATCH", api_path("users", user_id), json=body))

    def notifications_token(self) -> APITemporaryToken:
        """Create a short-lived token for the in-app notifications service.

        Needs a token of scheme ``user-internal``.

        Returns
        -------
        APITemporaryToken
            ``.token`` holds the JWT (hidden from its repr).

        Raises
        ------
        PermissionDeniedError
            The token's scheme may not create notification tokens.

        Examples
        --------
        >>> internal = sandbox.client(token=sandbox.tokens["user-internal"])  # its scheme
        >>> internal.users.notifications_token()  # the token is masked in its repr
        APITemporaryToken(token='********')
        >>> jwt = internal.users.notifications_token().token  # the value, to hand on
        """
        return APITemporaryToken.from_api(self._object("POST", "/user/notifications/token"))
