"""Matrix products on the calling thread: the BLAS thread count inside and after."""

import threading

import numpy as np
from threadpoolctl import threadpool_info

from openclaw_tinmem.process.blas import matrix_vector, single_threaded


def blas_threads() -> list[int]:
    return [info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"]


def test_products_inside_run_on_one_thread_and_the_count_comes_back() -> None:
    before = blas_threads()
    assert before, "numpy's BLAS library was not found"
    with single_threaded():
        assert blas_threads() == [1] * len(before)
        with single_threaded():  # nested: still one, and the outer one still holds
            assert blas_threads() == [1] * len(before)
        assert blas_threads() == [1] * len(before)
    assert blas_threads() == before


def test_the_count_comes_back_only_when_the_last_thread_leaves() -> None:
    before = blas_threads()
    inside, leave = threading.Event(), threading.Event()
    seen: list[list[int]] = []

    def hold() -> None:
        with single_threaded():
            inside.set()
            leave.wait(10)
            seen.append(blas_threads())

    other = threading.Thread(target=hold)
    other.start()
    assert inside.wait(10)
    with single_threaded():
        pass  # this thread leaves first: the other one is still inside
    assert blas_threads() == [1] * len(before)
    leave.set()
    other.join(10)
    assert seen == [[1] * len(before)]
    assert blas_threads() == before


def test_the_count_comes_back_when_a_product_fails() -> None:
    before = blas_threads()
    try:
        with single_threaded():
            np.ones((3, 4), dtype=np.float32) @ np.ones((5, 6), dtype=np.float32)
    except ValueError:
        pass
    assert blas_threads() == before


def test_matrix_vector_is_the_matrix_product() -> None:
    rng = np.random.default_rng(7)
    matrix = rng.standard_normal((5000, 384)).astype(np.float32)
    vector = rng.standard_normal(384).astype(np.float32)
    product = matrix_vector(matrix, vector)
    assert product.dtype == np.float32 and product.shape == (5000,)
    np.testing.assert_allclose(product, matrix @ vector, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(matrix_vector(matrix[:0], vector), np.zeros(0, np.float32))
