"""Running test work on several threads at once."""
import threading
from typing import Callable


def run_together(work: Callable[[int], None], n: int) -> None:
    """Run work(0), ..., work(n - 1) on n threads released together (a barrier), and
    re-raise what any of them raised."""
    errors: list = []
    barrier = threading.Barrier(n)

    def guarded(k: int) -> None:
        try:
            barrier.wait()
            work(k)
        except BaseException as e:  # noqa: BLE001 (reported below, from this thread)
            errors.append(e)

    threads = [threading.Thread(target=guarded, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
