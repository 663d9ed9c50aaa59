"""The engines under the learners: search strategies, local scores, CI-test runners.

Private. Every module here works on encoded data (:class:`skbn._data.EncodedData`),
the counting engine (:mod:`skbn._counting`) and the plug-ins (:mod:`skbn.scores`,
:mod:`skbn.citests`); nothing here imports a learner (:mod:`skbn.estimators`).
See ``docs/architecture.md``.
"""
