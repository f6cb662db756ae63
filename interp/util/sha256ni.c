/* sha256ni: SHA-256's rounds on the CPU's SHA extensions, where it has them. */
#include "util/sha256ni.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

int sha256ni_have(void)
{
	static int have = -1;

	if (have < 0) {
		__builtin_cpu_init();
		have = __builtin_cpu_supports("sha") &&
		       __builtin_cpu_supports("sse4.1");
	}
	return have;
}

__attribute__((target("sha,sse4.1")))
void sha256ni_blocks(uint32_t h[8], const uint32_t k[64],
		     const unsigned char *p, size_t n)
{
	const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL,
					    0x0405060700010203ULL);
	__m128i s0, s1, t, w[16], m, abef, cdgh;

	/* h as the instructions take it: ABEF and CDGH */
	t = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[0]), 0xB1);
	s1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[4]), 0x1B);
	s0 = _mm_alignr_epi8(t, s1, 8);
	s1 = _mm_blend_epi16(s1, t, 0xF0);
	for (; n; n--, p += 64) {
		abef = s0;
		cdgh = s1;
		for (int i = 0; i < 16; i++) {
			if (i < 4) {
				w[i] = _mm_shuffle_epi8(_mm_loadu_si128(
					(const __m128i *)(p + 16 * i)), swap);
			} else {
				m = _mm_sha256msg1_epu32(w[i - 4], w[i - 3]);
				m = _mm_add_epi32(m, _mm_alignr_epi8(
					w[i - 1], w[i - 2], 4));
				w[i] = _mm_sha256msg2_epu32(m, w[i - 1]);
			}
			m = _mm_add_epi32(w[i], _mm_loadu_si128(
				(const __m128i *)&k[4 * i]));
			s1 = _mm_sha256rnds2_epu32(s1, s0, m);
			s0 = _mm_sha256rnds2_epu32(s0, s1,
						   _mm_shuffle_epi32(m, 0x0E));
		}
		s0 = _mm_add_epi32(s0, abef);
		s1 = _mm_add_epi32(s1, cdgh);
	}
	t = _mm_shuffle_epi32(s0, 0x1B);
	s1 = _mm_shuffle_epi32(s1, 0xB1);
	s0 = _mm_blend_epi16(t, s1, 0xF0);
	s1 = _mm_alignr_epi8(s1, t, 8);
	_mm_storeu_si128((__m128i *)&h[0], s0);
	_mm_storeu_si128((__m128i *)&h[4], s1);
}

#else

int sha256ni_have(void)
{
	return 0;
}

void sha256ni_blocks(uint32_t h[8], const uint32_t k[64],
		     const unsigned char *p, size_t n)
{
	(void)h;
	(void)k;
	(void)p;
	(void)n;
}

#endif
