"""Small, named checks of the behaviours the golden README spells out, and of the helpers."""

from __future__ import annotations

import enum
import io
import sys
from typing import Any

import pytest
from PIL import Image
from ragchunk._pure import (
    extract_positions,
    has_wrapped_delimiter,
    legacy_delimiters,
    naive_merge,
    naive_merge_sources,
    naive_merge_with_images,
    parse_delimiter_field,
    remove_tag,
)
from ragchunk._pure.ragflow.delimiters import backtick_tokens, v022_anchored_match
from ragchunk._pure.ragflow.merge import overlap_prefix
from ragchunk.core.images import LazyImage, concat_img

TAG = "@@3\t10.0\t200.5\t30.0\t45.5##"
OLD = ["v0.26", "v0.23", "v0.22"]
LONG = "This sentence is long enough to have at least eight tokens in it"


# --- delimiter field ---------------------------------------------------------------


def test_parse_delimiter_field_rules() -> None:
    assert parse_delimiter_field("") == []
    assert parse_delimiter_field("\n。；") == ["\n", "。", "；"]
    assert parse_delimiter_field("\r\n`##`。。") == ["##", "\n", "。"]
    assert parse_delimiter_field("``") == ["`"]  # no characters between: not a token
    assert parse_delimiter_field("`\r\n`") == ["\n"]
    assert parse_delimiter_field(" ") == [" "]  # whitespace is a delimiter too


def test_legacy_delimiters_keep_duplicates_and_crlf() -> None:
    assert legacy_delimiters("\r\n`##`\n") == ["##", "\r", "\n", "\n"]
    assert legacy_delimiters("") == []


def test_has_wrapped_delimiter() -> None:
    assert has_wrapped_delimiter("`a`")
    assert not has_wrapped_delimiter("``")
    assert not has_wrapped_delimiter("")
    assert backtick_tokens("`a``b`c`") == ["a", "b"]


def test_v022_anchoring_quirk() -> None:
    # "^\n|。$": the first alternative is a prefix test, the last an exact match
    # that also tolerates one trailing newline.
    delimiters = ["\n", "。"]
    assert v022_anchored_match("\nabc", delimiters)
    assert v022_anchored_match("。\n", delimiters)
    assert not v022_anchored_match("。abc", delimiters)
    assert not v022_anchored_match("", delimiters)


# --- positions ----------------------------------------------------------------------


def test_remove_tag_removes_malformed_tags_too() -> None:
    assert remove_tag("a@@1\t2\t3##b") == "ab"
    assert remove_tag("@@1##2##") == "2##"  # lazy: the first "##" closes the tag
    assert remove_tag("@@##") == "@@##"


def test_extract_positions() -> None:
    assert extract_positions(f"x{TAG}y@@3-4\t1\t2\t3\t4##") == [
        ([2], 10.0, 200.5, 30.0, 45.5),
        ([2, 3], 1.0, 2.0, 3.0, 4.0),
    ]
    for malformed in ["@@1\t2\t3##", "@@1--2\t1\t2\t3\t4##", "@@1\t1..2\t3\t4\t5##"]:
        with pytest.raises(ValueError):
            extract_positions(malformed)


# --- naive_merge: README examples ---------------------------------------------------


@pytest.mark.parametrize("compat", OLD)
def test_old_families_lead_with_an_empty_chunk(compat: str) -> None:
    assert naive_merge("a", compat=compat) == ["", "\na"]
    assert naive_merge([""], compat=compat) == ["", "\n"]
    assert naive_merge("", compat=compat) == []
    assert naive_merge([], compat=compat) == []


def test_v027_empty_inputs() -> None:
    assert naive_merge("") == []
    assert naive_merge([]) == []
    assert naive_merge([""]) == []
    assert naive_merge([""], delimiter="") == ["\n"]


def test_v027_drops_delimiter_text_and_normalises_newlines() -> None:
    assert naive_merge("a\r\nb\rc。d") == ["\na\nb\nc\nd"]
    assert naive_merge("a\r\nb", delimiter="", compat="v0.26") == ["", "\na\r\nb"]


def test_v027_pos_follows_first_paragraph_of_its_section() -> None:
    assert naive_merge([("a\nb", TAG), ("c", TAG), ("d", "")]) == [f"\na{TAG}\nb\nc\nd"]


def test_v027_custom_mode() -> None:
    # Bare characters split too; empty segments are skipped; pos needs >= 8 tokens.
    assert naive_merge([("x##y\n\n" + LONG, TAG)], delimiter="\n`##`") == [
        "\nx",
        "\ny",
        "\n" + LONG + TAG,
    ]


@pytest.mark.parametrize("compat", ["v0.26", "v0.23"])
def test_old_custom_mode(compat: str) -> None:
    # Only the backtick tokens split; empty segments become "\n" chunks.
    assert naive_merge("a\n####b", delimiter="\n`##`", compat=compat) == ["\na\n", "\n", "\nb"]


def test_v022_has_no_custom_mode_and_splits_per_character() -> None:
    # chunk_token_num=0 with a character counter: every piece is its own chunk.
    assert naive_merge("a\nb", 0, "", compat="v0.22", count=len) == [
        "",
        "\na",
        "\nb",
    ]
    # Backticks only mark a multi-character delimiter; empty pieces survive.
    assert naive_merge("a####b", 0, "`##`", compat="v0.22", count=len) == [
        "",
        "\na",
        "\n",
        "\nb",
    ]


def test_v023_never_splits() -> None:
    assert naive_merge("a。" * 50, chunk_token_num=1, compat="v0.23") == ["", "\n" + "a。" * 50]


def test_add_chunk_pos_rules() -> None:
    # Under 8 tokens the pos is dropped; on a merge only the chunk so far is
    # searched, so a piece carrying its own tag gets it twice.
    assert naive_merge([("short", TAG)], compat="v0.26") == ["", "\nshort"]
    merged = naive_merge([(LONG, TAG), (LONG + TAG, TAG)], chunk_token_num=1000, compat="v0.23")
    assert merged == ["", f"\n{LONG}{TAG}\n{LONG}{TAG}"]
    twice = naive_merge([(LONG, "P"), (LONG + TAG, TAG)], chunk_token_num=1000, compat="v0.23")
    assert twice == ["", f"\n{LONG}P\n{LONG}{TAG}{TAG}"]


def test_overlap_prefix() -> None:
    assert overlap_prefix(f"abc{TAG}defghij", 30) == "hij"
    assert overlap_prefix("abcdefghij", 0) == ""
    assert overlap_prefix("abcdefghij", 150) == "fghij"  # negative start counts from the end
    assert overlap_prefix("", 50) == ""


def test_overlap_is_cut_from_the_previous_output_chunk() -> None:
    chunks = naive_merge(["aaaa", "bbbb", "cccc"], chunk_token_num=1, overlapped_percent=50)
    assert chunks == ["\naaaa", "aaa\nbbbb", "bbbb\ncccc"]


def test_v026_recounts_after_overlap() -> None:
    # With the prefix counted, the second chunk is already over the threshold.
    def count(text: str) -> int:
        return len(text)

    sections = ["aaaaaaaa", "bb", "c"]
    v26 = naive_merge(sections, 10, "", 50, compat="v0.26", count=count)
    v23 = naive_merge(sections, 10, "", 50, compat="v0.23", count=count)
    assert v26 == ["", "\naaaaaaaa", "aaaaa\nbb", "a\nbb\nc"]
    assert v23 == ["", "\naaaaaaaa", "aaaaa\nbb\nc"]


def test_under_cap_strategy_and_enum_values() -> None:
    class Strategy(enum.Enum):
        UNDER_CAP = "under_cap"

    sections = ["aaaa", "bbbb", "cccc"]
    assert naive_merge(sections, 10, "", strategy=Strategy.UNDER_CAP, count=len) == [
        "\naaaa\nbbbb",
        "\ncccc",
    ]
    assert naive_merge(sections, 10, "", strategy="over_cap", count=len) == ["\naaaa\nbbbb\ncccc"]


def test_sources_keep_duplicates_and_order() -> None:
    chunks, sources = naive_merge_sources(
        [("a。b", None), ("c", None)], 100, compat="v0.27", count=len
    )
    assert chunks == ["\na\nb\nc"]
    assert sources == [[0, 0, 1]]
    _, old_sources = naive_merge_sources([("a", None)], compat="v0.23")
    assert old_sources == [[], [0]]


def test_bad_arguments_are_value_errors() -> None:
    with pytest.raises(ValueError, match="compat"):
        naive_merge("a", compat="v0.19")
    with pytest.raises(ValueError, match="strategy"):
        naive_merge("a", strategy="sideways")


# --- images --------------------------------------------------------------------------


def _solid(width: int, height: int, color: Any, mode: str = "RGB") -> Image.Image:
    return Image.new(mode, (width, height), color)


def test_concat_img_identity_and_none() -> None:
    red = _solid(2, 2, (255, 0, 0))
    assert concat_img(red, red) is red
    assert concat_img(red, None) is red
    assert concat_img(None, red) is red
    assert concat_img(None, None) is None


def test_concat_img_equal_bytes_count_as_the_same_image() -> None:
    wide, tall = _solid(2, 1, (9, 9, 9)), _solid(1, 2, (9, 9, 9))
    assert concat_img(wide, tall) is wide


def test_concat_img_stacks_on_a_black_rgb_canvas() -> None:
    top = _solid(1, 1, (255, 0, 0))
    bottom = _solid(3, 2, (0, 255, 0, 128), "RGBA")
    stacked = concat_img(top, bottom)
    assert (stacked.mode, stacked.size) == ("RGB", (3, 3))
    assert stacked.getpixel((0, 0)) == (255, 0, 0)
    assert stacked.getpixel((1, 0)) == (0, 0, 0)  # black fill beside the narrower image
    assert stacked.getpixel((2, 2)) == (0, 255, 0)


def _png(color: tuple[int, int, int]) -> bytes:
    buffer = io.BytesIO()
    _solid(2, 1, color).save(buffer, format="PNG")
    return buffer.getvalue()


def test_lazy_images_stay_lazy_until_to_pil() -> None:
    red, blue = LazyImage([_png((255, 0, 0))]), LazyImage([_png((0, 0, 255))])
    merged = concat_img(red, blue)
    assert isinstance(merged, LazyImage)
    assert len(merged.parts) == 2
    image = merged.to_pil()
    assert image.size == (2, 2)
    assert image.getpixel((0, 1)) == (0, 0, 255)
    assert merged.to_pil() is image  # cached
    assert concat_img(LazyImage(), blue) is blue  # an empty lazy image is falsy
    assert not LazyImage([b""])


def test_lazy_and_pil_images_mix() -> None:
    lazy = LazyImage([_png((255, 0, 0))])
    stacked = concat_img(lazy, _solid(2, 1, (0, 255, 0)))
    assert isinstance(stacked, Image.Image)
    assert stacked.size == (2, 2)


def test_naive_merge_with_images_folds_per_chunk() -> None:
    red, green = _solid(1, 1, (255, 0, 0)), _solid(1, 1, (0, 255, 0))
    chunks, images = naive_merge_with_images(["a", "x", ("b", None)], [red, green, red])
    assert chunks == ["\na\nx\nb"]
    assert images[0].size == (1, 3)  # red, green, then red again: only the fold so far is compared
    # A None text is read as "", which yields no paragraph in v0.27: its image is lost.
    assert naive_merge_with_images(["a", None], [None, green]) == (["\na"], [None])
    chunks, images = naive_merge_with_images(["a", "b"], [red, None], compat="v0.23")
    assert chunks == ["", "\na\nb"]
    assert images == [None, red]
    assert naive_merge_with_images([], []) == ([], [])
    assert naive_merge_with_images(["a"], []) == ([], [])


def test_custom_mode_segments_keep_their_image() -> None:
    red = _solid(1, 1, (255, 0, 0))
    chunks, images = naive_merge_with_images(["a##b"], [red], delimiter="`##`")
    assert chunks == ["\na", "\nb"]
    assert images[0] is red and images[1] is red


class _FakeImage:
    """Truthy, sized, not a PIL image: stacking it needs Pillow."""

    size = (1, 1)


def test_pillow_is_only_needed_for_stacking(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "PIL", None)
    monkeypatch.setitem(sys.modules, "PIL.Image", None)
    first, second = _FakeImage(), _FakeImage()
    assert concat_img(first, None) is first
    assert concat_img(first, first) is first
    assert naive_merge_with_images(["a", "b"], [None, first]) == (["\na\nb"], [first])
    with pytest.raises(ImportError, match=r"ragchunk\[images\]"):
        concat_img(first, second)
