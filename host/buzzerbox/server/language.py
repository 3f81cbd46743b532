"""Which language a page and a refusal are said in, for the box's app and the hub's.

The reader's own choice first (the switch on every page sets the `lang` cookie, and
the phone keeps it), then, for the pages that follow the table (the TV, the hub's
page), the table's language, then the browser's (Accept-Language, in its order of
preference: "fr-CA, en;q=0.1" is French), then the table's, then English.

Flask-Babel holds the choice for the request (`get_locale`); buzzerbox.i18n has the
catalogs: the templates' `_()` reads the `pages` one, as the pages' JavaScript does.
/i18n/<lang>.json gives the pages' JavaScript its catalog (web/static/i18n.js loads it
before a page draws).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping

from flask import Flask, Response, jsonify, request
from flask.typing import ResponseReturnValue
from flask_babel import Babel, get_locale
from werkzeug.datastructures import LanguageAccept
from werkzeug.http import parse_accept_header, parse_cookie

from buzzerbox.errors import Words
from buzzerbox.i18n import (
    DEFAULT,
    LANGUAGES,
    LOCALE_DIR,
    NAMES,
    known,
    pages_catalog,
    say,
    translations,
)

#: the cookie the language switch sets (web/static/i18n.js)
COOKIE = "lang"


def pick_language(
    cookie: str | None,
    accepted: Iterable[tuple[str, float]],
    table: Callable[[], str | None] = lambda: None,
    follows_table: bool = False,
) -> str:
    """The switch's `cookie`, then the table's language where the page follows it, then
    Accept-Language in its order of preference (`accepted`), then the table's, then
    English (the module's docstring says why)."""
    own = known(cookie)
    if own:
        return own
    at_table = known(table())
    if at_table and follows_table:
        return at_table
    for value, _quality in accepted:
        browser = known(value)
        if browser:
            return browser
    return at_table or DEFAULT


def chosen_language(
    table: Callable[[], str | None] = lambda: None, follows_table: Collection[str] = ()
) -> str:
    """The language of the request being served (see the module's docstring)."""
    follows = request.endpoint in follows_table
    return pick_language(request.cookies.get(COOKIE), request.accept_languages, table, follows)


def header_language(headers: Mapping[str, object]) -> str:
    """The language of a request known only by its head, as waitress's parser keeps it
    ({"COOKIE": ..., "ACCEPT_LANGUAGE": ...}): the server's guard answers some before
    the app sees them (the table's language is the app's to know)."""
    cookie = parse_cookie(str(headers.get("COOKIE", ""))).get(COOKIE)
    accept = str(headers.get("ACCEPT_LANGUAGE", ""))
    return pick_language(cookie, parse_accept_header(accept, LanguageAccept))


#: set in a request's environ once its answer is said in a language (it then Varies)
SAID = "buzzerbox.language_said"


def language() -> str:
    """The language this request is answered in; the answer then says it Varies by the
    headers that choose the language (Accept-Language, and Cookie for the switch)."""
    request.environ[SAID] = True
    return str(get_locale() or DEFAULT)


def install_language(
    app: Flask,
    table: Callable[[], str | None] = lambda: None,
    follows_table: Collection[str] = (),
) -> None:
    """Choose every request's language, give the templates `lang` and `languages`, and
    serve the pages' catalogs."""
    Babel(
        app,
        default_locale=DEFAULT,
        default_translation_directories=str(LOCALE_DIR),
        locale_selector=lambda: chosen_language(table, follows_table),
    )

    # the templates' _() says the pages' words (the `pages` catalog, as their JavaScript)
    app.jinja_env.install_gettext_callables(  # type: ignore[attr-defined]
        gettext=lambda text: translations(language(), "pages").gettext(text),
        ngettext=lambda one, other, n: translations(language(), "pages").ngettext(one, other, n),
        newstyle=True,
    )

    @app.after_request
    def varies(response: Response) -> Response:
        """A cache keeps an answer said in one language for that language only: a page,
        a refusal, a score sheet, a result card, a press's why."""
        if request.environ.get(SAID):
            response.vary.add("Accept-Language")
            response.vary.add("Cookie")
        return response

    @app.context_processor
    def words() -> dict[str, object]:
        return {"lang": language(), "languages": NAMES}

    @app.get("/i18n/<lang>.json")
    def catalog(lang: str) -> ResponseReturnValue:
        if lang not in LANGUAGES:
            said = {"languages": ", ".join(LANGUAGES), "lang": lang[:24]}
            words = Words("the box speaks {languages}: not {lang!r}", said)
            refused = jsonify(error=say(words, language()), code="unknown-language")
            refused.status_code = 404
            return refused
        response = jsonify(pages_catalog(lang))
        response.headers["Cache-Control"] = "no-cache"  # kept, asked again with its ETag
        response.add_etag()
        return response.make_conditional(request)
