"""The verified scan's type check: EVENT_TYPES inverted gives one name per event class."""

from tonk.core.events import EVENT_TYPES
from tonk.storage.base import _TYPE_NAME_OF


def test_type_names_invert_event_types_one_to_one():
    assert len(set(EVENT_TYPES.values())) == len(EVENT_TYPES)
    assert {name: cls for cls, name in _TYPE_NAME_OF.items()} == EVENT_TYPES
