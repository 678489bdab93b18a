"""The bad-input run (zatre bench bad-input) in small: generated corrupt images and image
bombs, special files and mutated records through `read`, the folder camera and `score`,
in a process capped at 512 MB of address space. 0 crashes, 0 hangs."""

from zatre_vision.bench.bad_input import run_capped


def test_bad_input_under_a_512_mb_cap():
    result = run_capped(n_images=60, n_records=40, cap_mb=512, timeout=300)
    assert result["crashes"] == 0 and result["hangs"] == 0, result["problems"]
    assert result["problems"] == []  # bombs and other formats refused, good images read
    outcomes = result["outcomes"]
    assert outcomes["images"]["refused"] >= 40 and outcomes["images"]["ok"] >= 8
    assert outcomes["record-files"] == {"refused": result["cases"]["special_files"]}
    assert result["cases"]["special_files"] >= 4  # FIFO, devices, folder at least
    assert result["folder_source"]["frames_read"] >= 8
    assert 0 < result["peak_rss_mb"] < 512
