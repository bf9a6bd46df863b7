#ifndef INTERPOSER_H
#define INTERPOSER_H
void interposer_counts(int *sends, int *recvs, long long *bytes);
#endif
