# usage: would-pulse.py LEAD TRACE...
# Where wake_step's conditions hold (a raise in force, DMA32 empty within LEAD
# seconds at its last fall, kswapd asleep, Normal at its low): PULSE where
# Normal has room above its min to close the zones below it, RECLAIM where it
# has not; per trace, with the time until kswapd woke by itself.
import gzip,json,sys
LEAD=float(sys.argv[1]); files=sys.argv[2:]
for fn in files:
    prev=None; t0=None; out=[]
    recs=[json.loads(l) for l in gzip.open(fn,'rt')]
    S=[r for r in recs if r.get('type')=='sample']
    t0=S[0]['t']
    for i,r in enumerate(S):
        z={x['zone']:x for x in r['zones'] if x['node']==0}
        if 'Normal' not in z or 'DMA32' not in z: continue
        fr=lambda q: sum(c<<k for k,c in enumerate(q['nr_free']))
        n=z['Normal']; d=z['DMA32']; nf=fr(n); df=fr(d)
        if prev is not None and r['wsf']>10:
            dt=r['t']-prev['t']; pz={x['zone']:x for x in prev['zones'] if x['node']==0}
            pdf=fr(pz['DMA32']); fell=max(0,pdf-df)
            asleep=r['vmstat']['pgscan_kswapd']==prev['vmstat']['pgscan_kswapd']
            if asleep and fell>256 and dt>=0.05:
                floor=d['wmark_low']+n['managed_pages']//256
                left=max(0,df-floor)/(fell/dt)
                at_low=nf<=n['wmark_low']+(n['wmark_high']-n['wmark_low'])//4
                room=nf>n['wmark_min']+(n['wmark_low']-n['wmark_min'])//2
                if left<LEAD and at_low:
                    # when does kswapd wake by itself
                    tw=None
                    for q in S[i+1:]:
                        if q['vmstat']['pgscan_kswapd']!=r['vmstat']['pgscan_kswapd']: tw=q['t']-r['t']; break
                    out.append('%.1f %s N=%dM high=%dM D32=%dM left=%.1fs kswapd in %s' % (r['t']-t0, 'PULSE' if room else 'RECLAIM', nf*4>>10, n['wmark_high']*4>>10, df*4>>10, left, '%.1fs'%tw if tw is not None else '-'))
        prev=r
    print(fn.split('/')[-1], len(out)); [print('   ',x) for x in out]
