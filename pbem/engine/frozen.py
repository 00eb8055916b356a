"""Legal actions made once per ruleset and shared by every `legal()` answer: no dict is
built for a card or a bid a seat might choose (most of what `legal()` cost). Reading one
is reading a dict (JSON, ==, dict(a), {**a}); changing one in place raises, since every
game with those rules would see the change: copy it first (dict(a))."""

import copy


class Action(dict):
    """A dict that refuses to change. Copies (copy, deepcopy, pickle) are plain dicts."""

    __slots__ = ()

    def _refuse(self, *args, **kwargs):
        raise TypeError("a legal action is shared: change a copy of it (dict(action))")

    __setitem__ = __delitem__ = __ior__ = _refuse
    update = pop = popitem = clear = setdefault = _refuse

    def __reduce__(self):
        return dict, (dict(self),)

    def __copy__(self):
        return dict(self)

    def __deepcopy__(self, memo):
        return copy.deepcopy(dict(self), memo)
