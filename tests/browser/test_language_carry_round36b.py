"""Round 36b, in Chromium: files kept across a language switch never reach the next user of the browser.

The files chosen before a language switch are kept in IndexedDB for that one switch. A switch that landed on
the sign-in page (the session ended, or was signed out in another tab) left them there, and the next user to
sign in on that browser found them chosen in their own upload form, with the note. The entry is now tied to
the sign-in and the page; every page that loads takes it out, and only the same form of the same sign-in
puts it back."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_browser_flows import login
from tests.web.helpers import GOOD_CODE

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHOSEN = "() => ['code', 'audit'].map(n => document.querySelector(`input[name=${n}]`).files.length)"
STORED = """() => new Promise(done => {
  const req = indexedDB.open('autograder-upload-carry', 1);
  req.onupgradeneeded = () => req.result.createObjectStore('carry');
  req.onsuccess = () => { const get = req.result.transaction('carry').objectStore('carry').get('form');
                          get.onsuccess = () => done(get.result ? Object.keys(get.result.files) : null); };
})"""
PUT = """([user, path]) => new Promise(done => {
  const req = indexedDB.open('autograder-upload-carry', 1);
  req.onupgradeneeded = () => req.result.createObjectStore('carry');
  req.onsuccess = () => {
    const tx = req.result.transaction('carry', 'readwrite');
    tx.objectStore('carry').put({user, path, form: 0, at: Date.now(), checked: {confirm_no_audit: true},
                                 files: {code: new File(['x = 1'], 'alice_secret.py')}}, 'form');
    tx.oncomplete = () => done(true);
  };
})"""


def test_a_switch_that_lands_on_sign_in_leaves_nothing_for_the_next_user(app, factory, live_server, browser):
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu", name="Alice")
    bob = factory.student(email="bob@example.edu", name="Bob")
    context = browser.new_context()
    page = context.new_page()
    login(page, live_server, alice.email)
    page.wait_for_load_state()
    page.goto(f"{live_server}/assignments/{a.slug}")
    page.set_input_files("input[name=code]", files=[{"name": "alice_secret.py", "mimeType": "text/plain",
                                                     "buffer": GOOD_CODE}])
    other = context.new_page()                       # Alice signs out in another tab
    other.goto(f"{live_server}/assignments/{a.slug}")
    other.click("header form button[type=submit]")
    other.wait_for_url(lambda url: "/login" in url)
    other.close()
    page.click(".lang a:not(.on)")
    page.wait_for_url(lambda url: "/login" in url)
    assert page.evaluate(STORED) is None             # the sign-in page dropped it
    login(page, live_server, bob.email)
    page.wait_for_load_state()
    page.goto(f"{live_server}/assignments/{a.slug}")
    page.wait_for_timeout(300)
    assert page.evaluate(CHOSEN) == [0, 0]
    expect(page.locator("#carried-over")).to_be_hidden()
    context.close()


def test_a_kept_entry_goes_back_only_into_the_same_form_of_the_same_sign_in(app, factory, live_server, browser):
    a = factory.assignment()
    bob = factory.student(email="bob@example.edu", name="Bob")
    page = browser.new_context().new_page()
    login(page, live_server, bob.email)
    page.wait_for_load_state()
    path = f"/assignments/{a.slug}"
    page.goto(f"{live_server}{path}")
    # another sign-in's entry for this very form: not put back, and gone
    page.evaluate(PUT, ["another-sign-in", path])
    page.reload()
    page.wait_for_timeout(300)
    assert page.evaluate(CHOSEN) == [0, 0] and not page.is_checked("input[name=confirm_no_audit]")
    expect(page.locator("#carried-over")).to_be_hidden()
    assert page.evaluate(STORED) is None
    # this sign-in's entry, but another page loads first: dropped there, not put back later
    key = page.evaluate("() => (document.querySelector('meta[name=carry-key]') || {}).content || ''")
    page.evaluate(PUT, [key, path])
    page.goto(f"{live_server}/account/tokens")
    page.wait_for_timeout(300)
    assert page.evaluate(STORED) is None
    page.goto(f"{live_server}{path}")
    page.wait_for_timeout(300)
    assert page.evaluate(CHOSEN) == [0, 0]
    # this sign-in's entry for this form: put back, as a language switch does
    page.evaluate(PUT, [key, path])
    page.reload()
    expect(page.locator("#carried-over")).to_contain_text("alice_secret.py")
    assert page.evaluate(CHOSEN) == [1, 0]
    assert page.evaluate(STORED) is None
    page.context.close()
