"""The kernel a rerun executes in: local Unix sockets, not TCP.

jupyter_client starts kernels on TCP loopback ports by default; ipykernel then warns on every
run that the kernel "is running over TCP without encryption". Inter-process (IPC) sockets are
the source-level fix: nothing listens on the network, and there is nothing to warn about. The
socket files live in a private temporary folder, removed with the kernel manager.
"""

from __future__ import annotations

import tempfile

from jupyter_client.manager import AsyncKernelManager

__all__ = ["IPCKernelManager"]


class IPCKernelManager(AsyncKernelManager):
    """An ``AsyncKernelManager`` on IPC sockets in a private temporary folder.

    Give it to papermill as ``kernel_manager_class=IPCKernelManager``: the notebook client then
    creates, owns and shuts down the kernel as with the default manager.
    """

    def __init__(self, **kwargs):
        self._socket_folder = tempfile.TemporaryDirectory(prefix="attnspec-kernel-")
        kwargs.setdefault("transport", "ipc")
        kwargs.setdefault("ip", f"{self._socket_folder.name}/kernel")
        super().__init__(**kwargs)
