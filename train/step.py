"""The learner's minibatch step without autograd: the value networks' forward pass, the
backward pass of the soft-target cross-entropy written out by hand, and Adam, on one flat
buffer of parameters per network.

Why: the networks are small (a few tens of thousands of weights) and the minibatches too
(128 positions), so a step through autograd and ``torch.optim.Adam`` spends most of its
time in per-call overhead (building the graph, walking it, Adam's bookkeeping), not in
arithmetic. Here one step is a fixed list of about twenty tensor calls per network.

The numbers are autograd's and Adam's: every backward formula is ATen's own backward
kernel (``sigmoid_backward``, ``_log_softmax_backward_data``, ...) or the same matrix
products autograd runs, and Adam's update is the arithmetic of torch's (the moments'
``lerp``/``addcmul``, the bias corrections in Python floats, ``sqrt``, ``div``, ``add``,
``addcdiv``) applied to one flat tensor instead of a list. ``tests/test_train.py`` checks
that the weights after training equal, bit for bit, those of the plain autograd loop.

``FlatStep(optimizer, nets)`` reads the networks' parameters and Adam's moments into flat
buffers (``begin``), takes minibatch steps (``step``) and writes everything back into the
networks and the optimizer's state (``end``), so checkpoints keep torch's format.
"""

from __future__ import annotations

import torch

_aten = torch.ops.aten
_ALIGN = 16  # float32 elements in 64 bytes


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
        self.step = 0
        for param, at in zip(self.params, self.starts):
            n = param.numel()
            pv, gv = self.p[at:at + n].view_as(param), self.g[at:at + n].view_as(param)
            pv.copy_(param.detach())
            state = optimizer.state.get(param, {})
            if "exp_avg" in state:
                self.m[at:at + n].copy_(state["exp_avg"].reshape(-1))
                self.v[at:at + n].copy_(state["exp_avg_sq"].reshape(-1))
                self.step = int(float(state["step"]))
            self.views.append((pv, gv))
        # (weight, bias, weight's grad, bias's grad) per layer, the output layer last
        self.layers = [(self.views[i][0], self.views[i + 1][0], self.views[i][1],
                        self.views[i + 1][1]) for i in range(0, len(self.views), 2)]
        self.transposed = [weight.t() for weight, _, _, _ in self.layers]  # (in, out) views
        self.activation = net.activation

    def write_back(self, optimizer) -> None:
        """Parameters into the network, moments and step count into Adam's state."""
        with torch.no_grad():
            for param, (pv, _) in zip(self.params, self.views):
                param.copy_(pv)
        if self.step == 0:
            return
        for param, at in zip(self.params, self.starts):
            n = param.numel()
            state = optimizer.state[param]
            state["step"] = torch.tensor(float(self.step))
            state["exp_avg"] = self.m[at:at + n].view_as(param).clone()
            state["exp_avg_sq"] = self.v[at:at + n].view_as(param).clone()


class FlatStep:
    """Minibatch steps of Adam on the soft-target cross-entropy of several networks,
    each position through its own network, the loss averaged over the minibatch."""

    def __init__(self, optimizer: torch.optim.Adam, nets: list):
        self.optimizer, self.nets = optimizer, nets
        self.flats: list[_Flat] = []
        self._scales: dict[int, torch.Tensor] = {}
        self._losses: list[tuple[list, int]] = []

    def begin(self) -> None:
        group = self.optimizer.param_groups[0]
        if group.get("weight_decay", 0) or group.get("amsgrad") or group.get("maximize"):
            raise ValueError("the flat step does Adam without weight decay, amsgrad or "
                             "maximize")
        self.flats = [_Flat(net, self.optimizer) for net in self.nets]
        self._scales: dict[int, torch.Tensor] = {}
        self._losses: list[tuple[list, int]] = []

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
        parts = [None] * len(self.flats)
        for index, x, y in shares:
            parts[index] = self._backward(self.flats[index], x, y, scale)
        for index, _, _ in shares:
            self._adam(self.flats[index], group)
        self._losses.append((parts, n))

    def mean_loss(self) -> float:
        """The mean of the minibatches' losses since ``begin`` (0.0 if none), each
        (0 - part_1 - part_2 ...) / n in float32, as autograd's loss is."""
        if not self._losses:
            return 0.0
        zero = torch.zeros(())
        loss = torch.zeros(len(self._losses))
        for i in range(len(self.flats)):
            column = torch.stack([zero if parts[i] is None else parts[i].cpu()
                                  for parts, _ in self._losses])
            loss = loss - column
        n = torch.tensor([n for _, n in self._losses], dtype=torch.float32)
        return float((loss / n).double().mean())

    def _backward(self, flat: _Flat, x: torch.Tensor, y: torch.Tensor,
                  scale: torch.Tensor) -> torch.Tensor:
        """Forward, then gradients into ``flat.g``; returns sum(y * log_softmax)."""
        acts = [x]  # each layer's input
        for (_, bias, _, _), weight_t in zip(flat.layers[:-1], flat.transposed):
            pre = torch.addmm(bias, acts[-1], weight_t)
            acts.append(_ACTIVATE[flat.activation](pre))
        bias = flat.layers[-1][1]
        logp = torch.log_softmax(torch.addmm(bias, acts[-1], flat.transposed[-1]),
                                 dim=-1)  # (k, 6)
        part = (y * logp).sum()
        grad = _aten._log_softmax_backward_data(scale * y, logp, -1, logp.dtype)  # (k, 6)
        for depth in range(len(flat.layers) - 1, -1, -1):
            weight, _, weight_grad, bias_grad = flat.layers[depth]
            a = acts[depth]
            # autograd's linear backward: the weight's gradient as (a^T grad)^T, the bias's
            # as the column sums, the input's as grad @ weight
            torch.mm(grad.t(), a, out=weight_grad)
            torch.sum(grad, 0, out=bias_grad)
            if depth:
                grad = _BACKWARD[flat.activation](grad.mm(weight), a)
        return part

    @staticmethod
    def _adam(flat: _Flat, group: dict) -> None:
        """torch.optim.Adam's update (no weight decay, amsgrad or maximize) on the flat
        buffers, with the same arithmetic."""
        beta1, beta2 = group["betas"]
        flat.step += 1
        flat.m.lerp_(flat.g, 1 - beta1)
        flat.v.mul_(beta2).addcmul_(flat.g, flat.g, value=1 - beta2)
        bias_correction1 = 1 - beta1 ** float(flat.step)
        bias_correction2 = 1 - beta2 ** float(flat.step)
        step_size = (group["lr"] / bias_correction1) * -1
        denom = flat.v.sqrt().div_(bias_correction2 ** 0.5).add_(group["eps"])
        flat.p.addcdiv_(flat.m, denom, value=step_size)


_ACTIVATE = {"sigmoid": torch.sigmoid, "relu": torch.relu, "tanh": torch.tanh}
# the gradient through an activation from its output: ATen's own backward kernels
_BACKWARD = {"sigmoid": lambda grad, out: _aten.sigmoid_backward(grad, out),
             "tanh": lambda grad, out: _aten.tanh_backward(grad, out),
             "relu": lambda grad, out: _aten.threshold_backward(grad, out, 0)}
