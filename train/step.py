"""The learner's minibatch step, two ways with the same numbers: ``AutogradStep``, the
readable one (the soft-target cross-entropy, autograd's backward pass, ``torch.optim.Adam``),
and ``FlatStep``, its accelerator (the default, ``train.step``): the forward pass, the
backward pass written out by hand, and Adam, on one flat buffer of parameters per network.

Why the accelerator: the networks are small (a few tens of thousands of weights) and the
minibatches too (128 positions), so a step through autograd and ``torch.optim.Adam`` spends
most of its time in per-call overhead (building the graph, walking it, Adam's bookkeeping),
not in arithmetic. ``FlatStep`` is a fixed list of about fifteen tensor calls per network.

Its numbers are autograd's and Adam's: every backward formula is ATen's own backward kernel
(the activation's, from ``model.activations``; ``_log_softmax_backward_data``) or the same
matrix products autograd runs, and Adam's update is torch's fused kernel (the numbers of
``torch.optim.Adam(fused=True)``; torch before 2.4 has none for the CPU, and there the
arithmetic of its foreach Adam) applied to one flat tensor. ``tests/test_step.py`` checks
that both steps give the same weights, moments and losses bit for bit, and
``tests/test_train.py`` that the trainer's weights under either equal those of a plain loop.

Both are used alike: ``step = FlatStep(optimizer, nets)`` (or ``AutogradStep``);
``step.begin()`` (``FlatStep`` reads the networks' parameters and Adam's moments into flat
buffers), ``step.step(shares, n)`` per minibatch, ``step.mean_loss()``, ``step.end()``
(``FlatStep`` writes everything back into the networks and the optimizer's state, so
checkpoints keep torch's format).
"""

from __future__ import annotations

import torch

from gammon.model.activations import in_torch

_aten = torch.ops.aten
_ALIGN = 16  # float32 elements in 64 bytes
_ALIGN_BYTES = 4 * _ALIGN


class _Flat:
    """One network's parameters, gradients and Adam moments as flat tensors, with views
    shaped as the network's (weight (out, in), bias (out,)) layers."""

    def __init__(self, net, optimizer):
        self.net = net
        self.params = list(net.parameters())  # layers' weight, bias, ..., out's weight, bias
        # each parameter starts on a 64-byte boundary, as a tensor of its own does: the
        # matrix kernels take other paths (other roundings) for unaligned operands
        self.starts = [0]
        for param in self.params:
            self.starts.append(self.starts[-1] + -(-param.numel() // _ALIGN) * _ALIGN)
        total = self.starts[-1]
        device = self.params[0].device
        self.p = torch.zeros(total, device=device)  # (P,) with zero padding
        self.g = torch.zeros(total, device=device)
        self.m = torch.zeros(total, device=device)
        self.v = torch.zeros(total, device=device)
        self.views = []  # per parameter: (param view, grad view)
        step = 0.0
        for param, at in zip(self.params, self.starts):
            n = param.numel()
            pv, gv = self.p[at:at + n].view_as(param), self.g[at:at + n].view_as(param)
            pv.copy_(param.detach())
            state = optimizer.state.get(param, {})
            if "exp_avg" in state:
                self.m[at:at + n].copy_(state["exp_avg"].reshape(-1))
                self.v[at:at + n].copy_(state["exp_avg_sq"].reshape(-1))
                step = float(state["step"])
            self.views.append((pv, gv))
        self.step_t = torch.tensor(step, device=device)  # the step count, as Adam keeps it
        self.p_views = [pv for pv, _ in self.views]
        self.g_views = [gv for _, gv in self.views]
        self.m_views = [self.m[at:at + p.numel()] for p, at in zip(self.params, self.starts)]
        self.v_views = [self.v[at:at + p.numel()] for p, at in zip(self.params, self.starts)]
        self.steps = [self.step_t] * len(self.params)
        # (weight, bias, weight's grad, bias's grad) per layer, the output layer last
        self.layers = [(self.views[i][0], self.views[i + 1][0], self.views[i][1],
                        self.views[i + 1][1]) for i in range(0, len(self.views), 2)]
        self.transposed = [weight.t() for weight, _, _, _ in self.layers]  # (in, out) views
        self.activation = in_torch(net.activation)

    def write_back(self, optimizer) -> None:
        """Parameters into the network, moments and step count into Adam's state."""
        with torch.no_grad():
            for param, (pv, _) in zip(self.params, self.views):
                param.copy_(pv)
        if float(self.step_t) == 0:
            return
        for param, at in zip(self.params, self.starts):
            n = param.numel()
            state = optimizer.state[param]
            state["step"] = self.step_t.detach().cpu().clone()
            state["exp_avg"] = self.m[at:at + n].view_as(param).clone()
            state["exp_avg_sq"] = self.v[at:at + n].view_as(param).clone()


class FlatStep:
    """Minibatch steps of Adam on the soft-target cross-entropy of several networks,
    each position through its own network, the loss averaged over the minibatch."""

    def __init__(self, optimizer: torch.optim.Adam, nets: list):
        self.optimizer, self.nets = optimizer, nets
        self.flats: list[_Flat] = []

    def begin(self) -> None:
        """Read the networks and Adam's state; ValueError for an Adam this does not do."""
        group = self.optimizer.param_groups[0]
        if group.get("weight_decay", 0) or group.get("amsgrad") or group.get("maximize"):
            raise ValueError("the flat step does Adam without weight decay, amsgrad or "
                             "maximize")
        self.flats = [_Flat(net, self.optimizer) for net in self.nets]
        self._scales: dict[int, torch.Tensor] = {}
        self._outputs: list[tuple[int, torch.Tensor, torch.Tensor]] = []  # (b, y, logp)
        self._sizes: list[int] = []  # each minibatch's size

    def end(self) -> None:
        for flat in self.flats:
            flat.write_back(self.optimizer)
        self.flats = []

    @torch.no_grad()
    def step(self, shares: list, n: int) -> None:
        """One minibatch: ``shares`` per network (index into ``nets``, inputs (k, F),
        targets (k, 6)), k >= 1; ``n`` the minibatch's size. Its loss is kept for
        ``mean_loss``."""
        group = self.optimizer.param_groups[0]
        if n not in self._scales:
            # the loss is (0 - sum_i sum(y_i * log_softmax(net_i(x_i)))) / n; its gradient
            # with respect to each sum(y * log_softmax) is -(1 / n)
            self._scales[n] = -(torch.ones((), device=self.flats[0].p.device) / n)
        scale = self._scales[n]
        batch = len(self._sizes)
        for index, x, y in shares:
            self._outputs.append((batch, y, self._backward(self.flats[index], x, y, scale)))
        for index, _, _ in shares:
            _adam(self.flats[index], group)
        self._sizes.append(n)

    def mean_loss(self) -> float:
        """The mean of the minibatches' losses since ``begin`` (0.0 if none), each
        -sum(y * log_softmax) / n, summed once for the whole update (in float64)."""
        if not self._sizes:
            return 0.0
        y = torch.cat([y for _, y, _ in self._outputs])  # (N, 6)
        logp = torch.cat([logp for _, _, logp in self._outputs])
        batch = torch.cat([torch.full((len(t),), b, dtype=torch.int64, device=t.device)
                           for b, t, _ in self._outputs])  # (N,) each row's minibatch
        sums = torch.zeros(len(self._sizes), dtype=torch.float64, device=y.device)
        sums.index_add_(0, batch, (y * logp).sum(1, dtype=torch.float64))
        sizes = torch.tensor(self._sizes, dtype=torch.float64, device=y.device)
        return float((-sums / sizes).mean())

    def _backward(self, flat: _Flat, x: torch.Tensor, y: torch.Tensor,
                  scale: torch.Tensor) -> torch.Tensor:
        """Forward, then gradients into ``flat.g``; returns the log_softmax (k, 6)."""
        if x.data_ptr() % _ALIGN_BYTES:
            # a minibatch's share is a view into the epoch's inputs; the matrix kernels
            # round a few rows (2 or 3) differently when they do not start on a 64-byte
            # boundary, so an unaligned share is copied, as autograd's gathered one is
            x = x.clone()
        acts = [x]  # each layer's input
        for (_, bias, _, _), weight_t in zip(flat.layers[:-1], flat.transposed):
            pre = torch.addmm(bias, acts[-1], weight_t)
            acts.append(flat.activation.forward(pre))
        bias = flat.layers[-1][1]
        logp = torch.log_softmax(torch.addmm(bias, acts[-1], flat.transposed[-1]),
                                 dim=-1)  # (k, 6)
        grad = _aten._log_softmax_backward_data(scale * y, logp, -1, logp.dtype)  # (k, 6)
        for depth in range(len(flat.layers) - 1, -1, -1):
            weight, _, weight_grad, bias_grad = flat.layers[depth]
            a = acts[depth]
            # autograd's linear backward: the weight's gradient as (a^T grad)^T, the bias's
            # as the column sums, the input's as grad @ weight
            torch.mm(grad.t(), a, out=weight_grad)
            torch.sum(grad, 0, out=bias_grad)
            if depth:
                grad = flat.activation.backward(grad.mm(weight), a)
        return logp


class AutogradStep:
    """The readable minibatch step: the loss -sum(y * log_softmax(net(x))) / n over every
    network's share, autograd's backward pass and ``torch.optim.Adam``'s step; the same
    interface and numbers as ``FlatStep``."""

    def __init__(self, optimizer: torch.optim.Adam, nets: list):
        self.optimizer, self.nets = optimizer, nets
        self._losses: list[torch.Tensor] = []  # each minibatch's loss, ()

    def begin(self) -> None:
        """Adam's kernel set to torch's fused one where it has it for the CPU (the numbers
        ``FlatStep`` gives), else the single-tensor loop; whatever a checkpoint said."""
        for group in self.optimizer.param_groups:
            group["fused"], group["foreach"] = (True, None) if FUSED_ADAM else (None, False)
        self._losses = []

    def step(self, shares: list, n: int) -> None:
        """One minibatch: ``shares`` per network (index into ``nets``, inputs (k, F),
        targets (k, 6)), k >= 1; ``n`` the minibatch's size."""
        loss = 0.0
        for index, x, y in shares:
            # a share is a view into the epoch's inputs: copied, so that the matrix
            # kernels see rows on a 64-byte boundary (as FlatStep does, as gathering does)
            logits = self.nets[index](x.clone())  # (k, 6)
            loss = loss - (y * torch.log_softmax(logits, dim=-1)).sum()
        loss = loss / n
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()  # a network with no share has no gradient: Adam skips it
        self._losses.append(loss.detach())

    def mean_loss(self) -> float:
        """The mean of the minibatches' losses since ``begin`` (0.0 if none), taken in
        float64."""
        if not self._losses:
            return 0.0
        return float(torch.stack(self._losses).double().mean())

    def end(self) -> None:
        """Nothing to write back: Adam stepped the networks' own parameters."""
        self._losses = []


def _fused_adam_works() -> bool:
    """Whether torch has its fused Adam kernel for the CPU (torch 2.4 and later)."""
    try:
        one = [torch.zeros(1)]
        torch._fused_adam_(one, [torch.zeros(1)], [torch.zeros(1)], [torch.zeros(1)], [],
                           [torch.ones(())], amsgrad=False, lr=0.1, beta1=0.9, beta2=0.999,
                           weight_decay=0.0, eps=1e-8, maximize=False)
        return True
    except (AttributeError, RuntimeError, NotImplementedError):
        return False


FUSED_ADAM = _fused_adam_works()


def _adam(flat: _Flat, group: dict) -> None:
    """One Adam step (no weight decay, amsgrad or maximize) on the flat buffers: torch's
    fused kernel, the numbers of ``torch.optim.Adam(fused=True)`` (one call instead of
    seven); without it (torch before 2.4), the arithmetic of torch's foreach Adam."""
    beta1, beta2 = group["betas"]
    flat.step_t.add_(1)
    if FUSED_ADAM:
        # per parameter (views of the flat buffers): the kernel's vector and scalar paths
        # round differently, so each tensor must be split where torch's own would be
        torch._fused_adam_(flat.p_views, flat.g_views, flat.m_views, flat.v_views, [],
                           flat.steps,
                           amsgrad=False, lr=group["lr"], beta1=beta1, beta2=beta2,
                           weight_decay=0.0, eps=group["eps"], maximize=False)
        return
    flat.m.lerp_(flat.g, 1 - beta1)
    flat.v.mul_(beta2).addcmul_(flat.g, flat.g, value=1 - beta2)
    step = float(flat.step_t)
    bias_correction1 = 1 - beta1 ** step
    bias_correction2 = 1 - beta2 ** step
    step_size = (group["lr"] / bias_correction1) * -1
    denom = flat.v.sqrt().div_(bias_correction2 ** 0.5).add_(group["eps"])
    flat.p.addcdiv_(flat.m, denom, value=step_size)
