"""Chapter 6, "Attention": the plan of the exercises (no cases yet).

Each exercise follows chapters 1-5: a short program written against
PyTorch's API, recorded once under PyTorch and run under the engine with
the student's piece in place of the engine's own. Where an exercise has an
engine target, the chapter never prints that target's source (no
``literalinclude`` of it); it shows the neighbouring code instead.

=====  ==========================  ==========================================
id     exercise                    target (what the student's piece replaces)
=====  ==========================  ==========================================
6.1    masked softmax              ``nn.functional.attention.safe_softmax``:
                                   softmax along a dim, zeros (not nan) for a
                                   row of only ``-inf``; forward and backward
6.2    scaled dot-product          ``nn.functional.attention._composite``:
       attention                   ``softmax(q k^T * scale + mask) v`` with a
                                   bool or float ``attn_mask`` and
                                   ``is_causal``, in ordinary operations
6.3    splitting and merging       a free function ``split_heads(x, heads)``
       heads                       ``(B, T, C) -> (B, H, T, C/H)`` and
                                   ``merge_heads``, as views (``view`` and
                                   ``transpose``), checked for shape, values
                                   and that no copy is made where none is due
6.4    causal self-attention       a module ``CausalSelfAttention(n_embd,
                                   n_head, block_size)`` (one ``qkv`` Linear,
                                   one output Linear, torch's parameter
                                   names), loaded from recorded weights
6.5    a transformer block         ``Block``: pre-norm LayerNorm, attention,
                                   MLP with GELU, two residual additions;
                                   the build of 40 lines or more (6.4 + 6.5)
6.6    the GPT's forward           ``GPT.forward(idx, targets=None)``:
                                   token and position embeddings, blocks,
                                   final LayerNorm, head, cross-entropy of
                                   the flattened logits
6.7    generation                  ``generate(model, idx, new_tokens,
                                   temperature, top_k, generator)``: crop to
                                   the block, last position, divide by the
                                   temperature, keep the top k (``-inf``
                                   elsewhere), softmax, draw (the draw from
                                   Python's ``random`` so both libraries agree)
6.8    the training loop           ``train(model, batches, steps, lr)`` with
                                   AdamW, ``zero_grad(set_to_none=True)``;
                                   the losses compared with torch's, step by
                                   step, within 1e-5
6.9    predictions: masks and      short answers checked by value: the shape
       shapes                      of the scores for given (B, H, T, D); which
                                   of ``tril``/``triu(diagonal=1)`` to pass to
                                   ``masked_fill``; bool mask True means
                                   "attend" in ``scaled_dot_product_attention``
                                   but "ignore" in ``MultiheadAttention``'s
                                   ``key_padding_mask``; what a fully masked
                                   row gives with ``masked_fill`` + softmax
                                   (nan) and with SDPA (zeros)
=====  ==========================  ==========================================

What the chapter (``book/06_attention.md``) shows, and so what the
exercises must ask beyond it: the chapter quotes ``scaled_dot_product_attention``
and ``_fused_kernel_fits`` from the engine (never ``safe_softmax`` or
``_composite``), and its own GPT (``book/ch06/gpt.py``: ``make_model`` and
``train``) calls ``F.scaled_dot_product_attention(is_causal=True)``. So 6.4
asks for the attention written out with ``masked_fill`` (no SDPA), 6.6 adds
``targets`` and the loss, 6.7 adds temperature and top-k (the chapter's
sampler has neither), and 6.8 is checked on a model and data the chapter does
not use.

Drawn grading cases (``grading_ch06.py``, as ``grading_ch01.py``): random
``(B, H, T, D)`` shapes, random masks (including fully masked rows), random
weights for 6.4-6.6, a random seed for 6.7 and 6.8, each answer computed
outside the sandbox.
"""

from __future__ import annotations

from course.checking import Exercise

# No exercises yet: the chapter's cases are still to be written (see above).
EXERCISES: dict[str, Exercise] = {}
