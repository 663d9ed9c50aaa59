"""Reading and writing Bayesian networks: discrete ones in the BIF format, every kind
(discrete, Gaussian, CLG) as JSON (:func:`write_json`, :func:`read_json`).

Supported grammar (the one of the bnlearn repository's ``.bif`` files)::

    network <name> { property ... ; }                 // skipped
    variable <name> {
      type discrete [ <k> ] { <s1>, <s2>, ... };
      property ... ;                                  // skipped
    }
    probability ( <X> ) { table <p1>, <p2>, ...; }
    probability ( <X> | <P1>, <P2> ) {
      (<p1 state>, <p2 state>) <v1>, <v2>, ...;       // one row per parent configuration
      default <v1>, <v2>, ...;                        // rows not listed explicitly
      table <v>, ...;                                 // all rows at once, see below
    }

Comments ``// ...`` and ``/* ... */`` are ignored, also where they touch a word
(``no//c`` is the state ``no``, as in bnlearn). In a ``table`` entry of a node with
parents the values are listed with the node's own state varying slowest and the last
parent fastest (the JavaBayes/pgmpy convention).

Names :func:`write_bif` cannot write as they are (the rule bnlearn's ``read.bif`` sets: a
node name is ASCII letters, digits and ``_``; a state has no white space and none of
``, { } ( ) [ ] ; | " # %``, ``//`` or ``/*``) are written sanitised, each unsafe character
replaced by ``_`` (``M. Work`` -> ``M__Work``, ``a b`` -> ``a_b``; ``_2``, ``_3``, ... when
that collides), and the exact names are kept in ``property`` lines of the variable block,
percent-encoded (RFC 3986)::

    variable M__Work {
      type discrete [ 3 ] { None, a_b, 1-2 };
      property "skbn.name = M.%20Work";
      property "skbn.states = None,a%20b,1-2";
    }

Other readers skip properties and see the sanitised names; :func:`read_bif` restores the
exact ones (and refuses a ``skbn.states`` property that no longer matches the states, as
after hand-editing: applied in order, it would label the wrong probabilities).
"""

import json
import re
from itertools import product
from pathlib import Path
from urllib.parse import quote, unquote

import numpy as np

from .network import CLGBayesianNetwork, DiscreteBayesianNetwork, GaussianBayesianNetwork

__all__ = ["read_bif", "read_json", "write_bif", "write_json"]

_RENORMALISE_TOL = 1e-4   # rows summing to 1 within this are re-normalised
_EXACT_TOL = 1e-12        # ... but rows this close to 1 are kept as written (exact round trip)

_TOKEN = re.compile(
    r"(?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))"
    r'|(?P<string>"[^"]*")'
    r'|(?P<punct>[{}()\[\],;|])'
    r'|(?P<word>(?:[^\s{}()\[\],;|"/]|/(?![/*]))+)'   # a comment ends a word
    r'|(?P<space>\s+)'
    r'|(?P<bad>.)',
    re.DOTALL)

_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")

_PUNCT = frozenset("{}()[],;|")


class _Tokens:
    """A token stream that knows line numbers and raises ``ValueError`` on surprises."""

    def __init__(self, text):
        self.items = []
        line = 1
        for m in _TOKEN.finditer(text):
            kind, value = m.lastgroup, m.group()
            if kind == "bad":
                raise ValueError(f"BIF line {line}: stray character {value!r} (a quote that "
                                 "is never closed?).")
            if kind == "comment" and value.startswith("/*") and not value.endswith("*/"):
                raise ValueError(f"BIF line {line}: unterminated /* comment.")
            if kind in ("word", "punct", "string"):
                self.items.append((value, line))
            line += value.count("\n")
        self.pos = 0
        self.last_line = line

    def peek(self):
        return self.items[self.pos][0] if self.pos < len(self.items) else None

    @property
    def line(self):
        return self.items[self.pos][1] if self.pos < len(self.items) else self.last_line

    def next(self, what):
        if self.pos >= len(self.items):
            raise ValueError(f"BIF line {self.last_line}: end of input where {what} was "
                             "expected; is the file truncated?")
        value = self.items[self.pos][0]
        self.pos += 1
        return value

    def expect(self, token):
        line = self.line
        value = self.next(repr(token))
        if value != token:
            raise ValueError(f"BIF line {line}: expected {token!r}, found {value!r}.")

    def word(self, what):
        line = self.line
        value = self.next(what)
        if value in _PUNCT or value.startswith('"'):
            raise ValueError(f"BIF line {line}: expected {what}, found {value!r}.")
        return value

    def number(self, what):
        line = self.line
        value = self.word(what)
        try:
            number = float(value)
        except ValueError:
            number = None
        if number is None or (np.isfinite(number) and not _NUMBER.fullmatch(value)):
            # float() also takes "0.2_5" (0.25) and non-ASCII digits: not BIF numbers
            raise ValueError(f"BIF line {line}: expected {what}, found {value!r}.")
        if not np.isfinite(number):
            raise ValueError(f"BIF line {line}: {what} must be finite, found {value!r}.")
        return number

    def words_until(self, end, what):
        """Comma-separated words up to ``end`` (consumed)."""
        items = [self.word(what)]
        while self.peek() == ",":
            self.next(",")
            items.append(self.word(what))
        self.expect(end)
        return items

    def numbers_until_semicolon(self, what):
        items = [self.number(what)]
        while self.peek() != ";":
            if self.peek() == ",":
                self.next(",")
            items.append(self.number(what))
        self.expect(";")
        return items

    def skip_statement(self):
        """Skip to the next ``;`` (property statements)."""
        self.statement()

    def statement(self):
        """The tokens up to the next ``;`` (consumed, not returned)."""
        items = []
        while (token := self.next("';'")) != ";":
            items.append(token)
        return items

    def skip_block(self):
        """Skip a balanced ``{ ... }`` block (network block)."""
        self.expect("{")
        depth = 1
        while depth:
            token = self.next("'}'")
            depth += {"{": 1, "}": -1}.get(token, 0)


def _file_text(path, form, kind):
    """The text of the model file ``path``, read as UTF-8; a file that is not UTF-8 text is
    refused, naming its format ``form`` and the byte, and asking whether it is a ``kind``."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{form} file {str(path)!r} is not UTF-8 text (byte "
                         f"{error.start}); is it a {kind}?") from None


def read_bif(path_or_text):
    """Read a discrete Bayesian network from BIF text or a ``.bif`` file.

    Parameters
    ----------
    path_or_text : str or path-like
        A path, or the BIF text itself (a ``str`` that contains ``'{'`` or a newline, or
        is blank, is taken as text).

    Returns
    -------
    network : DiscreteBayesianNetwork
        Nodes in the order of the ``variable`` blocks; parents in the order of each
        ``probability`` header.

    Raises
    ------
    ValueError
        On malformed input, with the line number and what was expected; on empty or
        truncated input (no ``variable`` block), a file that is not UTF-8 text, a parent
        configuration listed twice with different probabilities, negative probabilities and
        CPT rows that do not sum to 1 within ``1e-4`` (rows within that tolerance are
        re-normalised), and a ``skbn.states`` property (see :func:`write_bif`) that does not
        match the variable's states.

    Examples
    --------
    >>> from skbn.io import read_bif
    >>> net = read_bif('''
    ... variable a { type discrete [ 2 ] { yes, no }; }
    ... probability ( a ) { table 0.25, 0.75; }''')
    >>> net.cpts["a"].tolist()
    [0.25, 0.75]
    """
    if isinstance(path_or_text, str) and (
            "{" in path_or_text or "\n" in path_or_text or not path_or_text.strip()):
        text = path_or_text
    else:
        text = _file_text(path_or_text, "BIF", "BIF file")
    tokens = _Tokens(text.removeprefix("\ufeff"))   # a byte order mark (Windows editors)
    if tokens.peek() is None:
        raise ValueError("BIF: the input is empty (no 'variable' block).")
    states, parents, cpts, exact = {}, {}, {}, {}
    while tokens.peek() is not None:
        line = tokens.line
        keyword = tokens.next("a block")
        if keyword == "network":
            while tokens.peek() not in ("{", None):
                tokens.next("'{'")
            tokens.skip_block()
        elif keyword == "variable":
            name, labels, exact[name] = _read_variable(tokens)
            if name in states:
                raise ValueError(f"BIF line {line}: variable {name!r} declared twice.")
            states[name] = labels
        elif keyword == "probability":
            node, pa, cpt = _read_probability(tokens, states, line)
            if node in cpts:
                raise ValueError(f"BIF line {line}: second probability block for {node!r}.")
            parents[node], cpts[node] = pa, cpt
        else:
            raise ValueError(f"BIF line {line}: expected 'network', 'variable' or "
                             f"'probability', found {keyword!r}.")
    if not states:
        raise ValueError(f"BIF line {tokens.last_line}: no 'variable' block; is the input "
                         "truncated?")
    missing = [v for v in states if v not in cpts]
    if missing:
        raise ValueError(f"BIF: no probability block for variable(s) {missing!r}.")
    if any(name is not None or labels is not None for name, labels in exact.values()):
        states, parents, cpts = _restore_names(states, parents, cpts, exact)
    return DiscreteBayesianNetwork(states, parents, cpts)


def _restore_names(states, parents, cpts, exact):
    """Put back the exact names kept by :func:`write_bif` in ``skbn.*`` properties."""
    node_name = {v: (exact[v][0] if exact[v][0] is not None else v) for v in states}
    if len(set(node_name.values())) != len(node_name):
        raise ValueError("BIF: two variables have the same 'skbn.name' property.")
    restored = {}
    for v, labels in states.items():
        originals = exact[v][1]
        if originals is None:
            restored[node_name[v]] = labels
        elif (len(set(originals)) != len(originals)
              or _bif_names(originals, _UNSAFE_STATE) != labels):
            # the states were edited after write_bif (renamed, reordered): the property's
            # names, taken in order, would label the wrong probabilities
            raise ValueError(f"BIF: the 'skbn.states' property of {v!r} ({originals!r}) "
                             f"does not match its states {labels!r} as write_bif writes them; "
                             "was the file edited? Delete the property to read the states "
                             "as written.")
        else:
            restored[node_name[v]] = originals
    return (restored,
            {node_name[v]: [node_name[p] for p in pa] for v, pa in parents.items()},
            {node_name[v]: cpt for v, cpt in cpts.items()})


def _read_variable(tokens):
    """``(name, states, (exact name or None, exact states or None))`` of a variable block."""
    name = tokens.word("a variable name")
    tokens.expect("{")
    labels = None
    exact = [None, None]
    while tokens.peek() != "}":
        line = tokens.line
        keyword = tokens.next("'type' or 'property'")
        if keyword == "property":
            statement = tokens.statement()
            if len(statement) == 1 and statement[0].startswith('"skbn.'):
                key, _, value = statement[0][1:-1].partition(" = ")
                if key == "skbn.name":
                    exact[0] = unquote(value, errors="strict")
                elif key == "skbn.states":
                    exact[1] = [unquote(v, errors="strict") for v in value.split(",")]
        elif keyword == "type":
            kind = tokens.word("'discrete'")
            if kind != "discrete":
                raise ValueError(f"BIF line {line}: variable {name!r} has type {kind!r}; "
                                 f"only 'discrete' is supported.")
            tokens.expect("[")
            count_line = tokens.line
            count = tokens.word("the number of states")
            if not count.isdigit():
                raise ValueError(f"BIF line {count_line}: expected the number of states of "
                                 f"{name!r}, found {count!r}.")
            tokens.expect("]")
            tokens.expect("{")
            labels = tokens.words_until("}", f"a state of {name!r}")
            tokens.expect(";")
            if len(labels) != int(count):
                raise ValueError(f"BIF line {line}: variable {name!r} declares {count} "
                                 f"states but lists {len(labels)}: {labels!r}.")
            if len(set(labels)) != len(labels):
                raise ValueError(f"BIF line {line}: variable {name!r} repeats a state.")
        else:
            raise ValueError(f"BIF line {line}: expected 'type' or 'property' in variable "
                             f"{name!r}, found {keyword!r}.")
    tokens.expect("}")
    if labels is None:
        raise ValueError(f"BIF line {tokens.line}: variable {name!r} has no 'type' line.")
    return name, labels, tuple(exact)


def _read_probability(tokens, states, line):
    tokens.expect("(")
    node = tokens.word("a variable name")
    pa = []
    if tokens.peek() == "|":
        tokens.next("'|'")
        pa = tokens.words_until(")", "a parent name")
    else:
        tokens.expect(")")
    for name in [node] + pa:
        if name not in states:
            role = "variable" if name == node else f"parent of {node!r}"
            raise ValueError(f"BIF line {line}: unknown {role} {name!r} "
                             f"(declare it in a 'variable' block first).")
    shape = tuple(len(states[p]) for p in pa) + (len(states[node]),)
    r = shape[-1]
    table = np.full(shape, np.nan)
    default = None
    tokens.expect("{")
    while tokens.peek() != "}":
        row_line = tokens.line
        head = tokens.next("a row, 'table', 'default' or '}'")
        if head == "property":
            tokens.skip_statement()
            continue
        if head == "(":
            labels = tokens.words_until(")", "a parent state")
            if len(labels) != len(pa):
                raise ValueError(f"BIF line {row_line}: {node!r} has {len(pa)} parent(s) but "
                                 f"the row lists {len(labels)} state(s).")
            config = []
            for p, label in zip(pa, labels):
                if label not in states[p]:
                    raise ValueError(f"BIF line {row_line}: {label!r} is not a state of "
                                     f"parent {p!r} (states {states[p]!r}).")
                config.append(states[p].index(label))
            target = tuple(config)
        elif head in ("table", "default"):
            target = head
        else:
            raise ValueError(f"BIF line {row_line}: expected '(', 'table' or 'default' in "
                             f"the probability block of {node!r}, found {head!r}.")
        values = tokens.numbers_until_semicolon(f"a probability of {node!r}")
        expected = table.size if target == "table" else r
        if len(values) != expected:
            raise ValueError(f"BIF line {row_line}: expected {expected} probabilities for "
                             f"{node!r}, found {len(values)}.")
        if target == "table":
            values = np.moveaxis(np.array(values).reshape((r,) + shape[:-1]), 0, -1)
            _check_no_conflict(table, values, (), node, pa, states, row_line)
            table[...] = values
        elif target == "default":
            if default is not None and default != values:
                raise ValueError(f"BIF line {row_line}: two different 'default' rows for "
                                 f"{node!r}.")
            default = values
        else:
            _check_no_conflict(table[target], np.array(values), target, node, pa, states,
                               row_line)
            table[target] = values
    tokens.expect("}")
    unset = np.isnan(table[..., 0])
    if default is not None:
        table[unset] = default
    elif unset.any():
        config = tuple(np.argwhere(unset)[0])
        labels = {p: states[p][k] for p, k in zip(pa, config)}
        raise ValueError(f"BIF line {line}: no probabilities for {node!r} given parent "
                         f"configuration {labels!r}.")
    return node, pa, _renormalise(node, pa, table, states, line)


def _check_no_conflict(current, new, config, node, pa, states, line):
    """Refuse probabilities given twice, with different values, for one parent configuration."""
    clash = ~np.isnan(current[..., 0]) & np.any(current != new, axis=-1)
    if np.any(clash):
        config = tuple(config) + tuple(np.argwhere(clash)[0])
        labels = {p: states[p][k] for p, k in zip(pa, config)}
        raise ValueError(f"BIF line {line}: contradictory probabilities for {node!r} given "
                         f"{labels!r} (that parent configuration is listed twice with "
                         "different values).")


def _renormalise(node, pa, table, states, line):
    negative = (table < 0).any(axis=-1)
    if negative.any():
        config = tuple(np.argwhere(negative)[0])
        labels = {p: states[p][k] for p, k in zip(pa, config)}
        raise ValueError(f"BIF line {line}: probabilities of {node!r} given {labels!r} "
                         f"include a negative value ({float(table[config].min())!r}).")
    sums = table.sum(axis=-1, keepdims=True)
    off = np.abs(sums[..., 0] - 1.0)
    bad = off > _RENORMALISE_TOL
    if bad.any():
        config = tuple(np.argwhere(bad)[0])
        labels = {p: states[p][k] for p, k in zip(pa, config)}
        raise ValueError(f"BIF line {line}: probabilities of {node!r} given {labels!r} "
                         f"sum to {float(sums[config][0]):.6g}, not 1.")
    return np.where((off > _EXACT_TOL)[..., None], table / sums, table)


#: Characters a BIF state cannot hold (bnlearn's read.bif splits or matches on them, or
#: skbn's reader takes them as punctuation): white space and these.
_UNSAFE_STATE = re.compile(r'[\s,{}()\[\];|"#%]|/(?=[/*])')
_UNSAFE_NODE = re.compile(r"[^A-Za-z0-9_]")


def _bif_names(names, unsafe):
    """Written names for ``names`` (str of each label): unchanged when safe, else each unsafe
    character replaced by ``_`` and ``_2``, ``_3``, ... appended until no name repeats."""
    texts = [str(name) for name in names]
    safe = [bool(text) and not unsafe.search(text) for text in texts]
    taken = {text for text, ok in zip(texts, safe) if ok}
    written = []
    for text, ok in zip(texts, safe):
        if ok:
            written.append(text)
            continue
        base = unsafe.sub("_", text) or "_"
        candidate, k = base, 1
        while candidate in taken:
            k += 1
            candidate = f"{base}_{k}"
        taken.add(candidate)
        written.append(candidate)
    return written


def write_bif(network, path=None):
    """Write a network as BIF text (and to ``path`` when given).

    Probabilities are written with ``repr(float)`` (shortest exact representation), so
    ``read_bif(write_bif(net))`` reproduces every CPT exactly.

    Names are written as bnlearn's ``read.bif`` can read them: a node name that is not
    only ASCII letters, digits and ``_``, or a state with white space, one of
    ``, { } ( ) [ ] ; | " # %``, ``//`` or ``/*``, or empty, is written with each such
    character replaced by ``_`` (then ``_2``, ``_3``, ... if that name is taken), and the
    exact names are kept, percent-encoded, in ``property "skbn.name = ..."`` and
    ``property "skbn.states = ..."`` lines of its variable block. Other readers see the
    sanitised names; :func:`read_bif` restores the exact ones, as text.

    Parameters
    ----------
    network : DiscreteBayesianNetwork
        The network to write.
    path : str or path-like, optional
        File to write the text to.

    Returns
    -------
    text : str
        The BIF text.

    Raises
    ------
    ValueError
        If the network has continuous nodes (a Gaussian or CLG network: BIF holds discrete
        networks only, use :func:`write_json`), or if two node names (or two states of one
        node) differ but have the same text, such as the integer ``1`` and the string
        ``'1'``: BIF stores every name as text, so such a file could not be read back.

    Examples
    --------
    >>> from skbn.io import read_bif, write_bif
    >>> from skbn.network import DiscreteBayesianNetwork
    >>> net = DiscreteBayesianNetwork({"M. Work": ["None", "a b"]}, {},
    ...                               {"M. Work": [0.25, 0.75]})
    >>> print(write_bif(net))
    network unknown {
    }
    variable M__Work {
      type discrete [ 2 ] { None, a_b };
      property "skbn.name = M.%20Work";
      property "skbn.states = None,a%20b";
    }
    probability ( M__Work ) {
      table 0.25, 0.75;
    }
    <BLANKLINE>
    >>> read_bif(write_bif(net)).states
    {'M. Work': ['None', 'a b']}
    """
    _check_bif_writable(network)
    _check_distinct_names(network)
    nodes = dict(zip(network.nodes, _bif_names(network.nodes, _UNSAFE_NODE)))
    states = {v: _bif_names(network.states[v], _UNSAFE_STATE) for v in network.nodes}
    lines = ["network unknown {", "}"]
    for node in network.nodes:
        labels = states[node]
        lines += [f"variable {nodes[node]} {{",
                  f"  type discrete [ {len(labels)} ] {{ {', '.join(labels)} }};"]
        if nodes[node] != str(node):
            lines.append(f'  property "skbn.name = {quote(str(node), safe="")}";')
        if labels != [str(s) for s in network.states[node]]:
            exact = ",".join(quote(str(s), safe="") for s in network.states[node])
            lines.append(f'  property "skbn.states = {exact}";')
        lines.append("}")
    for node in network.nodes:
        pa = network.parents[node]
        cpt = network.cpts[node]
        if not pa:
            lines += [f"probability ( {nodes[node]} ) {{",
                      f"  table {_format_row(cpt)};", "}"]
            continue
        lines.append(f"probability ( {nodes[node]} | {', '.join(nodes[p] for p in pa)} ) {{")
        for config in product(*(range(len(network.states[p])) for p in pa)):
            labels = ", ".join(states[p][k] for p, k in zip(pa, config))
            lines.append(f"  ({labels}) {_format_row(cpt[config])};")
        lines.append("}")
    text = "\n".join(lines) + "\n"
    if path is not None:
        Path(path).write_text(text, encoding="utf-8")
    return text


def _check_bif_writable(network):
    """Refuse a network with continuous nodes: BIF holds discrete CPTs only (the rule of
    :func:`write_bif` and of the command line's ``-o model.bif``)."""
    states = getattr(network, "states", {})
    continuous = [node for node in network.nodes if node not in states]
    if continuous or not hasattr(network, "cpts"):
        raise ValueError(f"BIF holds discrete networks only, and this {type(network).__name__} has "
                         f"continuous nodes {continuous[:5]!r}; write it with write_json instead")


def _check_distinct_names(network):
    """Refuse names that differ but print alike (``1`` and ``'1'``): they would not read back."""
    groups = [("node", network.nodes)] + [
        (f"state of {node!r}", network.states[node]) for node in network.nodes]
    for what, names in groups:
        written = {}
        for name in names:
            text = str(name)
            if text in written:
                raise ValueError(f"The {what} names {written[text]!r} and {name!r} are both "
                                 f"written {text!r} in BIF, so the file could not be read back; "
                                 "rename one of them.")
            written[text] = name


def _format_row(values):
    return ", ".join(repr(float(v)) for v in values)


# ---------------------------------------------------------------------- JSON
_JSON_FORMAT = "skbn.DiscreteBayesianNetwork"
_JSON_VERSION = 2          # version 2 added the "kind" field (Gaussian and CLG networks)
_JSON_KINDS = {"discrete": DiscreteBayesianNetwork, "gaussian": GaussianBayesianNetwork,
               "clg": CLGBayesianNetwork}


def _json_scalar(value):
    """A node name or state label as a JSON scalar (numpy scalars -> Python scalars)."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    raise ValueError(f"Label {value!r} of type {type(value).__name__} cannot be written "
                     f"to JSON (use str, int, float or bool names and states).")


def write_json(network, path=None):
    """Write a network as JSON text (and to ``path`` when given).

    Schema of a discrete network (version 1, no ``"kind"``)::

        {"format": "skbn.DiscreteBayesianNetwork", "version": 1,
         "nodes": [{"name": "wet", "states": ["yes", "no"], "parents": ["rain"],
                    "cpt": [[0.9, 0.1], [0.1, 0.9]]},
                   ...]}

    ``nodes`` is in node order. Names and states are JSON scalars (strings, numbers,
    booleans), so integer or boolean labels survive the round trip. ``cpt`` is the
    conditional probability table as nested lists of shape
    ``(r_parent_1, ..., r_parent_k, r_node)``: one axis per parent, in ``parents`` order,
    then the node's own states (the layout of :attr:`DiscreteBayesianNetwork.cpts`).

    Gaussian and CLG networks (version 2) add ``"kind": "gaussian"`` or ``"clg"``; a
    continuous node has no ``states`` and no ``cpt`` but ``intercept``, ``coefficients``
    and ``sigma``::

        {"format": "skbn.DiscreteBayesianNetwork", "version": 2, "kind": "clg",
         "nodes": [{"name": "g", "states": ["a", "b"], "parents": [], "cpt": [0.4, 0.6]},
                   {"name": "y", "parents": ["g", "x"], "intercept": [0.0, 1.5],
                    "coefficients": [[2.0], [0.5]], "sigma": [1.0, 0.7]},
                   ...]}

    In a Gaussian network ``intercept`` and ``sigma`` are numbers and ``coefficients`` a
    list, one per parent in ``parents`` order. In a CLG network they are nested lists with
    one axis per discrete parent (in ``parents`` order), ``coefficients`` with a last axis
    over the continuous parents: the layouts of :attr:`CLGBayesianNetwork.intercepts`,
    ``coefficients`` and ``sigmas``. A document without ``"kind"`` is a discrete network.
    Floats are written with ``repr``, so ``read_json(write_json(net))`` is exact.

    Parameters
    ----------
    network : DiscreteBayesianNetwork, GaussianBayesianNetwork or CLGBayesianNetwork
        The network to write.
    path : str or path-like, optional
        File to write the text to (overwritten); nothing is written when omitted.

    Returns
    -------
    text : str
        The JSON document, ending with a newline.

    Examples
    --------
    >>> from skbn.datasets import asia_network
    >>> from skbn.io import read_json, write_json
    >>> net = asia_network()
    >>> copy = read_json(write_json(net))
    >>> copy.edges == net.edges and all((copy.cpts[v] == net.cpts[v]).all() for v in net.nodes)
    True
    """
    if isinstance(network, DiscreteBayesianNetwork):
        head = {"format": _JSON_FORMAT, "version": 1}
    elif isinstance(network, (GaussianBayesianNetwork, CLGBayesianNetwork)):
        kind = "gaussian" if isinstance(network, GaussianBayesianNetwork) else "clg"
        head = {"format": _JSON_FORMAT, "version": _JSON_VERSION, "kind": kind}
    else:
        raise TypeError(f"write_json writes a DiscreteBayesianNetwork, GaussianBayesianNetwork "
                        f"or CLGBayesianNetwork, got {type(network).__name__}.")
    states = getattr(network, "states", {})
    nodes = []
    for node in network.nodes:
        entry = {"name": _json_scalar(node)}
        if node in states:
            entry["states"] = [_json_scalar(s) for s in states[node]]
        entry["parents"] = [_json_scalar(p) for p in network.parents[node]]
        if node in states:
            entry["cpt"] = np.asarray(network.cpts[node], dtype=float).tolist()
        else:
            for field, table in (("intercept", network.intercepts),
                                 ("coefficients", network.coefficients), ("sigma", network.sigmas)):
                entry[field] = np.asarray(table[node], dtype=float).tolist()
        nodes.append(entry)
    text = json.dumps({**head, "nodes": nodes}, indent=1) + "\n"
    if path is not None:
        Path(path).write_text(text)
    return text


def read_json(path_or_text):
    """Read a network written by :func:`write_json` (a path, or the JSON text itself).

    A ``str`` starting with ``{`` (after white space) is taken as text.

    Parameters
    ----------
    path_or_text : str or path-like
        Path of a JSON file, or the JSON text itself.

    Returns
    -------
    network : DiscreteBayesianNetwork, GaussianBayesianNetwork or CLGBayesianNetwork
        The network described by the document, by its ``"kind"`` (none: discrete).

    Raises
    ------
    ValueError
        On invalid JSON, a different ``format``, a newer ``version`` or an unknown
        ``kind``, a missing key (the message names it and the node), or parameters the
        network refuses (a CPT of the wrong shape or rows not summing to 1, a coefficient
        array of the wrong shape, a negative sigma; the message names the node).
    """
    if isinstance(path_or_text, str) and path_or_text.lstrip().startswith("{"):
        text = path_or_text
    else:
        text = _file_text(path_or_text, "JSON", "network JSON file")
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"Invalid JSON network: {exc}.") from None
    if not isinstance(document, dict) or document.get("format") != _JSON_FORMAT:
        raise ValueError(f"Not a skbn network JSON document: expected "
                         f"\"format\": {_JSON_FORMAT!r}.")
    version = document.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version > _JSON_VERSION:
        raise ValueError(f"Unsupported network JSON version {version!r} "
                         f"(this skbn reads version {_JSON_VERSION}).")
    kind = document.get("kind", "discrete")
    if kind not in _JSON_KINDS:
        raise ValueError(f"Network JSON: unknown \"kind\" {kind!r} (expected one of "
                         f"{list(_JSON_KINDS)!r}).")
    entries = document.get("nodes")
    if not isinstance(entries, list):
        raise ValueError("Network JSON: \"nodes\" must be a list of node objects.")
    names, states, parents, cpts = [], {}, {}, {}
    intercepts, coefficients, sigmas = {}, {}, {}
    for position, entry in enumerate(entries):
        discrete = kind == "discrete" or (kind == "clg" and isinstance(entry, dict)
                                          and "states" in entry)
        keys = (("name", "states", "parents", "cpt") if discrete else
                ("name", "parents", "intercept", "coefficients", "sigma"))
        if not isinstance(entry, dict):
            listed = ", ".join(json.dumps(k) for k in keys)
            raise ValueError(f"Network JSON: node #{position} must be an object with "
                             f"{listed}, got {_json_type(entry)}.")
        missing = [k for k in keys if k not in entry]
        if missing:
            raise ValueError(f"Network JSON: node #{position} lacks {missing!r}.")
        name = entry["name"]
        if not _is_json_scalar(name):
            raise ValueError(f"Network JSON: \"name\" of node #{position} must be a string "
                             f"or a number, got {_json_type(name)}.")
        if name in parents:
            raise ValueError(f"Network JSON: node {name!r} is listed twice.")
        for field, what in (("states", "state names"), ("parents", "node names")):
            if field not in keys:
                continue
            value = entry[field]
            if not isinstance(value, list):
                raise ValueError(f"Network JSON: \"{field}\" of node {name!r} must be a list "
                                 f"of {what}, got {_json_type(value)}.")
            bad = [v for v in value if not _is_json_scalar(v)]
            if bad:
                raise ValueError(f"Network JSON: \"{field}\" of node {name!r} must list "
                                 f"strings or numbers, got {_json_type(bad[0])}.")
        names.append(name)
        parents[name] = entry["parents"]
        if discrete:
            if not entry["states"]:
                raise ValueError(f"Network JSON: \"states\" of node {name!r} is empty.")
            states[name] = entry["states"]
            cpts[name] = _json_array(entry, "cpt", name, "a number or nested lists of numbers "
                                     "(one axis per parent, then the node's states)")
            continue
        for field, table in (("intercept", intercepts), ("coefficients", coefficients),
                             ("sigma", sigmas)):
            table[name] = _json_array(entry, field, name, "a number" if kind == "gaussian"
                                      and field != "coefficients" else "a number or nested "
                                      "lists of numbers (one axis per discrete parent)")
            if kind == "gaussian" and field != "coefficients" and table[name].ndim:
                raise ValueError(f"Network JSON: \"{field}\" of node {name!r} must be a "
                                 f"number in a Gaussian network, got a list.")
    if kind == "discrete":
        return DiscreteBayesianNetwork(states, parents, cpts)
    if kind == "gaussian":
        return GaussianBayesianNetwork(names, parents, {v: float(x) for v, x in intercepts.items()},
                                       coefficients, {v: float(x) for v, x in sigmas.items()})
    return CLGBayesianNetwork(names, states, parents, cpts, intercepts, coefficients, sigmas)


def _json_array(entry, field, name, what):
    """``entry[field]`` as a float array; an error naming the field and the node."""
    try:
        return np.asarray(entry[field], dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"Network JSON: \"{field}\" of node {name!r} must be {what}.") from None


def _is_json_scalar(value):
    return value is None or isinstance(value, (str, bool, int, float))


def _json_type(value):
    """How a JSON value reads in a message: 'the string 'yn'', 'an object', ..."""
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return f"{value!r}"
