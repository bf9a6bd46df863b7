/* MPI_Bcast from every root, 0 bytes to over 1 MB, several datatypes; the
 * bytes after the buffer stay untouched. Run with each algorithm forced. */
#include "coll_common.h"

static const size_t sizes[] = {0, 1, 3, 100, 4096, 12287, 12288, 40000, 65536, 100003, (1u << 20) + 17};

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "coll_bcast");
    size_t s;
    int root, i;

    pt_set_phase("bytes");
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        unsigned char *buf = (unsigned char *)coll_sentinel_alloc(n);
        for (root = 0; root < pt_size; root++) {
            /* Large messages from a few roots only: enough for every branch. */
            if (n > 200000 && root != 0 && root != pt_size - 1 && root != pt_size / 2) {
                continue;
            }
            uint32_t seed = pt_seed(root, 0, (int)s, 1);
            if (rank == root) {
                pt_fill(buf, n, seed);
            } else {
                memset(buf, 0, n);
            }
            CK(MPI_Bcast(buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD));
            pt_verify(buf, n, seed, "MPI_Bcast bytes");
            coll_check_tail(buf, n, "MPI_Bcast bytes: after the buffer");
        }
        free(buf);
    }

    pt_set_phase("typed");
    for (root = 0; root < pt_size; root++) {
        double d[1000];
        int two[2 * 50];
        long double ld[33];
        for (i = 0; i < 1000; i++) {
            d[i] = rank == root ? (double)i * 0.5 - root : -1.0;
        }
        for (i = 0; i < 100; i++) {
            two[i] = rank == root ? i * 3 + root : -1;
        }
        for (i = 0; i < 33; i++) {
            ld[i] = rank == root ? (long double)i / 4.0L + root : 0.0L;
        }
        CK(MPI_Bcast(d, 1000, MPI_DOUBLE, root, MPI_COMM_WORLD));
        CK(MPI_Bcast(two, 50, MPI_2INT, root, MPI_COMM_WORLD));
        CK(MPI_Bcast(ld, 33, MPI_LONG_DOUBLE, root, MPI_COMM_WORLD));
        for (i = 0; i < 1000; i++) {
            EXPECT(d[i] == (double)i * 0.5 - root, "double %d from root %d: %g", i, root, d[i]);
        }
        for (i = 0; i < 100; i++) {
            EXPECT(two[i] == i * 3 + root, "2int %d from root %d: %d", i, root, two[i]);
        }
        for (i = 0; i < 33; i++) {
            EXPECT(ld[i] == (long double)i / 4.0L + root, "long double %d from root %d", i, root);
        }
    }

    pt_set_phase("self");
    {
        int v = rank + 5;
        CK(MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_SELF));
        EXPECT(v == rank + 5, "MPI_COMM_SELF broadcast changed the value to %d", v);
    }
    return pt_finish();
}
