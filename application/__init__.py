"""The application layer: what combines the engine with plugins and a store.

Simulation (:mod:`.simulate`), served tables (:mod:`.tables`), adjudication of hand records (:mod:`.adjudicate`),
the audit of an archive (:mod:`.audit`) and re-adjudication under other rules
(:mod:`.reconsider`).  They depend on small interfaces: a ruleset loader
(:class:`tonk.core.ruleset.RulesetLoader`, by default
:func:`tonk.variants.load_ruleset`) and an event sink (:class:`.sink.EventSink`,
e.g. :class:`tonk.storage.EventStore`).  The CLI (and the service) only parse
input and render output on top of this layer.
"""
