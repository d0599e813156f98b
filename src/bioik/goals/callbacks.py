"""User functions as C callbacks, so that the compiled kernels of every solver call them.

A function goal keeps its callback's address in its parameter row, and its kernel calls
it through `call_link` / `call_joint`; a new user function compiles no kernel again.

* A numba `@njit` function is wrapped in a `numba.cfunc` (compiled once per function and
  process, not cached on disk: the function lives outside bioik's sources). The search
  stays in compiled code, without the GIL.
* Any other callable is wrapped in a ctypes callback, which takes the GIL for each call:
  the same searches, slower. An exception cannot cross compiled code, so the callback
  records it (`Callback.failures`), returns NaN, and `Callback.raise_failure` raises it
  once the search has returned.

When the kernel asks for derivatives the callback also takes central differences (step
`STEP`): a link function's along the link's three translations and three rotations (about
the base axes, through the link's origin: the convention of the link Jacobian), a joint
function's along each joint value.
"""

from __future__ import annotations

import ctypes
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from llvmlite import ir
from numba import carray, cfunc, njit, types
from numba.core.dispatcher import Dispatcher
from numba.extending import intrinsic
from numba.np.arrayobj import make_array

from bioik.kinematics.frames import JIT, frame_to_matrix

#: Central-difference step (m for translations, rad for rotations and joint values).
STEP = 1e-6

_F64P = ir.DoubleType().as_pointer()
_I64 = ir.IntType(64)
#: value = callback(frame (7: position, quaternion w x y z), gradient out (6: ∂/∂p, ∂/∂ω), with_gradient)
_LINK_IR = ir.FunctionType(ir.DoubleType(), [_F64P, _F64P, _I64])
LINK_SIGNATURE = types.float64(types.CPointer(types.float64), types.CPointer(types.float64), types.int64)
LINK_CTYPE = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_double), ctypes.c_int64)
#: callback(q, q's stride, n, out, out's stride, jacobian out, its row and column strides,
#: with_gradient): out_i = f(q)_i, jacobian_ij = ∂f_i/∂q_j (strides in elements)
_JOINT_IR = ir.FunctionType(ir.VoidType(), [_F64P, _I64, _I64, _F64P, _I64, _F64P, _I64, _I64, _I64])
JOINT_SIGNATURE = types.void(types.CPointer(types.float64), types.int64, types.int64, types.CPointer(types.float64),
                             types.int64, types.CPointer(types.float64), types.int64, types.int64, types.int64)
_P = ctypes.POINTER(ctypes.c_double)
JOINT_CTYPE = ctypes.CFUNCTYPE(None, _P, ctypes.c_int64, ctypes.c_int64, _P, ctypes.c_int64, _P, ctypes.c_int64,
                               ctypes.c_int64, ctypes.c_int64)


@intrinsic
def data_pointer(typingctx, array):
    """The address of a float64 array's first element, as a C pointer."""
    if not (isinstance(array, types.Array) and array.dtype == types.float64):
        return None

    def codegen(context, builder, sig, args):
        return make_array(sig.args[0])(context, builder, args[0]).data

    return types.CPointer(types.float64)(array), codegen


@intrinsic
def call_link(typingctx, address, frame, gradient, with_gradient):
    """The link callback at `address` (an int64) on a frame pointer; returns its value."""
    sig = types.float64(types.int64, types.CPointer(types.float64), types.CPointer(types.float64), types.int64)

    def codegen(context, builder, sig, args):
        function = builder.inttoptr(args[0], _LINK_IR.as_pointer())
        return builder.call(function, list(args[1:]))

    return sig, codegen


@intrinsic
def call_joint(typingctx, address, q, q_stride, n, out, out_stride, jacobian, row_stride, column_stride, with_gradient):
    """The joint callback at `address` (an int64)."""
    p, i = types.CPointer(types.float64), types.int64
    sig = types.void(i, p, i, i, p, i, p, i, i, i)

    def codegen(context, builder, sig, args):
        function = builder.inttoptr(args[0], _JOINT_IR.as_pointer())
        builder.call(function, list(args[1:]))
        return context.get_dummy_value()

    return sig, codegen


@njit(**JIT)
def perturbed(T, k, step, out):
    """out ← T moved by `step` along direction k: a translation along base axis k (k < 3),
    or a rotation about base axis k − 3 through the frame's origin."""
    out[:, :] = T
    if k < 3:
        out[k, 3] += step
        return
    a, b = (k - 2) % 3, (k - 1) % 3  # the two axes the rotation mixes
    c, s = np.cos(step), np.sin(step)
    for j in range(3):
        ra, rb = T[a, j], T[b, j]
        out[a, j] = c * ra - s * rb
        out[b, j] = s * ra + c * rb


def _compiled_link(function: Dispatcher):
    """A cfunc calling an @njit T ↦ cost function, with its central differences."""

    @cfunc(LINK_SIGNATURE, nopython=True)
    def callback(frame, gradient, with_gradient):
        T = np.empty((4, 4))
        frame_to_matrix(carray(frame, (7,)), T)
        value = function(T.copy()) * 1.0
        if with_gradient != 0:
            M = np.empty((4, 4))
            for k in range(6):
                perturbed(T, k, STEP, M)
                up = function(M) * 1.0
                perturbed(T, k, -STEP, M)
                down = function(M) * 1.0
                gradient[k] = (up - down) / (2.0 * STEP)
        return value

    return callback


def _compiled_joint(function: Dispatcher):
    """A cfunc calling an @njit q ↦ values function, with its central differences."""

    @cfunc(JOINT_SIGNATURE, nopython=True)
    def callback(q_in, q_stride, n, out, out_stride, jacobian, row_stride, column_stride, with_gradient):
        q = np.empty(n)
        for i in range(n):
            q[i] = q_in[i * q_stride]
        y = np.asarray(function(q.copy()), dtype=np.float64)
        if y.shape[0] != n:  # a wrong length reads as NaN: the goal names it after the search
            for i in range(n):
                out[i * out_stride] = np.nan
            return
        for i in range(n):
            out[i * out_stride] = y[i]
        if with_gradient != 0:
            x = q.copy()
            for j in range(n):
                x[j] = q[j] + STEP
                up = np.asarray(function(x.copy()), dtype=np.float64)
                x[j] = q[j] - STEP
                down = np.asarray(function(x.copy()), dtype=np.float64)
                x[j] = q[j]
                for i in range(n):
                    jacobian[i * row_stride + j * column_stride] = (up[i] - down[i]) / (2.0 * STEP)

    return callback


@dataclass
class Callback:
    """A user function's C callback: `address` goes into the goal's parameter row; the
    wrapper objects stay referenced here for as long as the goal uses them."""

    address: int
    compiled: bool
    keep: object
    #: Exceptions the Python path caught (it cannot raise through compiled code).
    failures: list[BaseException] = field(default_factory=list)

    def raise_failure(self) -> None:
        """Raise the first exception a call recorded since the last check, if any."""
        if self.failures:
            error = self.failures[0]
            self.failures.clear()
            raise error


#: Per @njit function, its compiled callbacks (link, joint): a cfunc takes ≈ 1 s to build.
_COMPILED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_COMPILED_LOCK = threading.Lock()


def _cfunc(function: Dispatcher, make: Callable, slot: int):
    with _COMPILED_LOCK:
        pair = _COMPILED.setdefault(function, [None, None])
        if pair[slot] is None:
            pair[slot] = make(function)
        return pair[slot]


def link_callback(function: Callable[[np.ndarray], float], check: Callable[[object], float]) -> Callback:
    """The callback of a link function T ↦ cost; `check` turns its return value into a
    float or raises the goal's error."""
    if isinstance(function, Dispatcher):
        c = _cfunc(function, _compiled_link, 0)
        return Callback(c.address, True, c)
    callback = Callback(0, False, None)

    def call(frame, gradient, with_gradient):
        try:
            T = np.empty((4, 4))
            frame_to_matrix(np.ctypeslib.as_array(frame, (7,)), T)
            value = check(function(T.copy()))
            if with_gradient:
                g = np.ctypeslib.as_array(gradient, (6,))
                M = np.empty((4, 4))
                for k in range(6):
                    perturbed(T, k, STEP, M)
                    up = check(function(M.copy()))
                    perturbed(T, k, -STEP, M)
                    g[k] = (up - check(function(M.copy()))) / (2.0 * STEP)
            return value
        except BaseException as error:  # noqa: BLE001 — raised again after the search
            callback.failures.append(error)
            return np.nan

    wrapper = LINK_CTYPE(call)
    callback.address, callback.keep = ctypes.cast(wrapper, ctypes.c_void_p).value, wrapper
    return callback


def joint_callback(function: Callable[[np.ndarray], np.ndarray], check: Callable[[object, int], np.ndarray]) -> Callback:
    """The callback of a joint function q ↦ values; `check` turns its return value into n
    floats or raises the goal's error."""
    if isinstance(function, Dispatcher):
        c = _cfunc(function, _compiled_joint, 1)
        return Callback(c.address, True, c)
    callback = Callback(0, False, None)

    def call(q_in, q_stride, n, out, out_stride, jacobian, row_stride, column_stride, with_gradient):
        try:
            q = np.array([q_in[i * q_stride] for i in range(n)])
            y = check(function(q.copy()), n)
            for i in range(n):
                out[i * out_stride] = y[i]
            if with_gradient:
                x = q.copy()
                for j in range(n):
                    x[j] = q[j] + STEP
                    up = check(function(x.copy()), n)
                    x[j] = q[j] - STEP
                    down = check(function(x.copy()), n)
                    x[j] = q[j]
                    for i in range(n):
                        jacobian[i * row_stride + j * column_stride] = (up[i] - down[i]) / (2.0 * STEP)
        except BaseException as error:  # noqa: BLE001 — raised again after the search
            callback.failures.append(error)
            for i in range(n):
                out[i * out_stride] = np.nan

    wrapper = JOINT_CTYPE(call)
    callback.address, callback.keep = ctypes.cast(wrapper, ctypes.c_void_p).value, wrapper
    return callback
