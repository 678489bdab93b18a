"""The API takes a tile value as `zatre score` does (rules.tiles.is_tile_value): 6.0 and
true are refused by both (issue 45)."""

import json

import pytest


@pytest.mark.parametrize("value", [6.0, True, "6.0"])
def test_the_api_refuses_what_score_refuses(operator, playing, zatre, tmp_path, value):
    before = playing.state()["board"]
    resp = operator.post_json("/table/turn", {"placed": {"I8": value}})
    assert resp.status_code == 400, resp.get_data(as_text=True)
    assert playing.state()["board"] == before
    record = {"players": ["Ann", "Ben"], "turns": [{"player": "Ann", "placed": {"H8": value}}]}
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    assert zatre("score", str(path)).returncode == 2


def test_a_whole_tile_value_still_goes_in(operator, playing):
    assert operator.post_json("/table/turn", {"placed": {"I8": 4}}).status_code == 200
    assert playing.state()["board"]["I8"] == 4
